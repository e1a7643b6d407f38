/**
 * `npm run bench -- docs`: how long each service's reference page takes to become usable in
 * Chromium, served as `npm start` serves it (/docs/<slug>.html from the bundle, the stubs' seeded
 * credentials in its console). Usable: Redoc has rendered the first operation with its "Try it"
 * button, and a click on that button opens the console (so the main thread is free to answer).
 * Each load is in a fresh browser context (nothing cached), timed from the navigation's start, and
 * is followed by a second load of the same page in that context (warm: as a reader moving between
 * pages finds Redoc's script in the browser's cache); the target is on the first.
 * A page drawn a tag at a time (more operations than WHOLE_REFERENCE_LIMIT) is also timed drawn
 * whole (`?whole`, as every page was drawn before), in the same run: the machine's load moves the
 * figures between runs, the ratio within one much less.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, chromiumAvailable, chromiumPath } from '../../test/helpers/chromium.js';
import type { OpenAPI3 } from 'openapi-typescript';
import { listOperations, listWebhooks } from '../../server-stubs/lib/openapi/document.js';
import { WHOLE_REFERENCE_LIMIT } from '../../scripts/steps/docs.js';
import { startPlatformServer } from '../../server-stubs/server.js';
import { median, root } from '../lib/processes.js';
import type { Suite, Target } from '../suite.js';

const TARGET_MS = 2000;

interface PageRow {
  slug: string;
  /** `?whole`: the page drawn whole, for comparison (no target) */
  whole: boolean;
  /** the HTML as sent, bytes */
  htmlBytes: number;
  /** navigation start to DOMContentLoaded (the page and its scripts parsed and run), ms, each run */
  parsed: number[];
  /** navigation start to the first operation's "Try it" button shown, ms, each run */
  rendered: number[];
  /** navigation start to the console open after a click on that button, ms, each run */
  interactive: number[];
  /** the same, loaded again in the same browser context (Redoc's script from the browser's cache) */
  warm: number[];
}

interface Timing {
  parsed: number;
  rendered: number;
  interactive: number;
  htmlBytes: number;
}

async function timeLoad(tab: Page, url: string): Promise<Timing> {
  const answer = await tab.goto(url, { waitUntil: 'commit' });
  const htmlBytes = (await answer!.body()).length;
  const button = tab.locator('button.try-it-operation').first();
  await button.waitFor({ state: 'visible' });
  // The page's own clock: its time origin is the navigation's start.
  const rendered = await tab.evaluate(() => performance.now());
  await button.click();
  await tab.locator('aside#try-it').waitFor({ state: 'visible' });
  const interactive = await tab.evaluate(() => performance.now());
  const parsed = await tab.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd);
  return { parsed: Math.round(parsed), rendered: Math.round(rendered), interactive: Math.round(interactive), htmlBytes };
}

/** A first visit (a fresh context: nothing cached), then the same page again in that context. */
async function loadTwice(browser: Browser, url: string): Promise<{ cold: Timing; warm: Timing }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const tab: Page = await context.newPage();
  tab.setDefaultTimeout(60_000);
  try {
    const cold = await timeLoad(tab, url);
    await tab.goto('about:blank');
    return { cold, warm: await timeLoad(tab, url) };
  } finally {
    await context.close();
  }
}

/** Operations and webhooks, as docs/assets/reference.js counts them. */
function operationCount(slug: string): number {
  const document: OpenAPI3 = JSON.parse(readFileSync(path.join(root, 'generated', slug, 'openapi.json'), 'utf8'));
  return listOperations(document).length + listWebhooks(document).length;
}

export async function measureDocsPages(rounds: number): Promise<PageRow[]> {
  const stubs = await startPlatformServer(0, '127.0.0.1');
  const browser = await launchChromium();
  const origin = `http://127.0.0.1:${stubs.port}`;
  try {
    // The pages the portal lists: one per bundle.
    const slugs = readdirSync(path.join(root, 'generated')).filter((slug) => existsSync(path.join(root, 'generated', slug, 'openapi.json')));
    const rows: PageRow[] = [];
    const pages = slugs.flatMap((slug) => [{ slug, whole: false }, ...(operationCount(slug) > WHOLE_REFERENCE_LIMIT ? [{ slug, whole: true }] : [])]);
    for (const { slug, whole } of pages) {
      const url = `${origin}/docs/${slug}.html${whole ? '?whole' : ''}`;
      // Once untimed: the server renders each page on its first request, and Chromium compiles Redoc's script.
      await loadTwice(browser, url);
      const row: PageRow = { slug, whole, htmlBytes: 0, parsed: [], rendered: [], interactive: [], warm: [] };
      for (let i = 0; i < rounds; i++) {
        const { cold, warm } = await loadTwice(browser, url);
        row.htmlBytes = cold.htmlBytes;
        row.parsed.push(cold.parsed);
        row.rendered.push(cold.rendered);
        row.interactive.push(cold.interactive);
        row.warm.push(warm.interactive);
      }
      rows.push(row);
    }
    return rows;
  } finally {
    await browser.close();
    await stubs.close();
  }
}

export const suite: Suite = {
  description: 'docs portal: time to a usable reference page in Chromium, per service',
  async run() {
    if (!chromiumAvailable) throw new Error(`${chromiumPath} is missing: the docs benchmark needs Chromium (apt-get install chromium)`);
    const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
    const rows = await measureDocsPages(rounds);
    const targets: Target[] = rows.filter((r) => !r.whole).map((r) => ({
      name: `docs: ${r.slug} page interactive in Chromium, ms (< ${TARGET_MS})`,
      measured: median(r.interactive),
      met: median(r.interactive) < TARGET_MS,
    }));
    const markdown = [
      '## Docs portal: time to a usable page (`npm run bench -- docs`)',
      '',
      `Each service's page as \`npm start\` serves it (/docs/<slug>.html), loaded ${rounds} times in Chromium (headless, a fresh context`,
      'each time, after one untimed load) and timed from the navigation\'s start: *parsed* at DOMContentLoaded, *rendered* when the',
      'first operation\'s "Try it" button shows, *interactive* when a click on it has opened the console; *warm*, interactive when',
      'loaded again in the same context (Redoc\'s script in the browser\'s cache, as for a reader moving between pages). Medians; every run of',
      `the last column listed. A page with more than ${WHOLE_REFERENCE_LIMIT} operations is drawn a tag at a time; *(whole)* is the same`,
      'page drawn whole (`?whole`, as every page was before), timed in the same run.',
      '',
      '| page | HTML, kB | parsed, ms | rendered, ms | interactive, ms | interactive runs, ms | warm, ms | target, ms | met |',
      '|---|---:|---:|---:|---:|---|---:|---:|---|',
      ...rows.map(
        (r) =>
          `| ${r.slug}${r.whole ? ' *(whole)*' : ''} | ${Math.round(r.htmlBytes / 1024)} | ${median(r.parsed)} | ${median(r.rendered)} | ${median(r.interactive)} | ${r.interactive.join(', ')} | ${median(r.warm)} | ${r.whole ? '—' : `< ${TARGET_MS}`} | ${r.whole ? '—' : median(r.interactive) < TARGET_MS ? 'yes' : '**no**'} |`,
      ),
    ].join('\n');
    return { markdown, targets };
  },
};
