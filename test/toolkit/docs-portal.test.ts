/**
 * The docs portal (issue 16): what Redoc would hide, provisional parts and rate limits, is written
 * into the reference it renders, and the "try it" console sends a request of the contract to the
 * stubs and shows the answer, in real Chromium (Debian's, as in browser.test.ts), without a single
 * request leaving the machine.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consoleModel } from '../../scripts/steps/docs/console-model.js';
import { FORBIDDEN_FIELD_LABEL, markForReaders, PROVISIONAL_LABEL } from '../../scripts/steps/docs/reader-marks.js';
import { startDevServer, type DevServer } from '../../scripts/dev.js';
import { collectProvisional } from '../../scripts/lib/provisional.js';
import { pointerTokens, valueAt } from '../../server-stubs/lib/openapi/document.js';
import { asDocument } from '../helpers/fixture-document.js';
import { copyToolkit, type ProjectCopy } from '../helpers/project-copy.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * One `npm start` server and one Chromium for the file, started when a test first needs them: the
 * portal's pages are only read (the console's requests list projects, which changes nothing), and
 * every test opens its own page, in a fresh browser context.
 */
let npmStart: Promise<PlatformServer> | undefined;
const startedStubs = () => (npmStart ??= startPlatformServer(0, '127.0.0.1'));
let chromium: Promise<Browser> | undefined;
const sharedBrowser = () => (chromium ??= launchChromium());
afterAll(async () => {
  await Promise.all([chromium?.then((browser) => browser.close()), npmStart?.then((stubs) => stubs.close())]);
});

const fixture = () => asDocument({
  openapi: '3.1.0',
  info: { title: 'Fixture', version: '1' },
  servers: [{ url: 'http://localhost:4000/fx' }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        description: 'Lists things.',
        'x-provisional': 'The paging was designed.',
        'x-rate-limit': { requests: 30, windowSeconds: 60 },
        parameters: [{ name: 'cursor', in: 'query', schema: { type: 'string' }, 'x-provisional': 'The cursor was designed.' }],
        responses: {
          '200': {
            description: 'The things.',
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Thing' }, example: { 'x-provisional': 'data, not a mark', description: 'kept' } },
              'text/csv': { schema: { type: 'string' }, 'x-provisional': 'The CSV form was designed.' },
            },
          },
        },
      },
      post: {
        operationId: 'createThing',
        'x-rate-limit': { requests: 5, windowSeconds: 10, 'x-provisional': 'The numbers were designed.' },
        responses: { '201': { description: 'Created.' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The name.' },
          colour: { type: 'string', 'x-provisional': 'The colour field was designed.' },
          default: { type: 'string' },
        },
      },
    },
  },
});

describe('reader marks: what Redoc hides, written into what it renders', () => {
  const marked = markForReaders(fixture());
  const list = (...tokens: string[]) => valueAt(marked, ['paths', '/things', 'get', ...tokens]);
  const create = (...tokens: string[]) => valueAt(marked, ['paths', '/things', 'post', ...tokens]);

  test('a provisional operation gets a badge and its note first in its description', () => {
    expect(list('x-badges')).toContainEqual({ name: 'Provisional', color: expect.any(String) });
    expect(list('description')).toMatch(new RegExp(`^\\*\\*${PROVISIONAL_LABEL}\\*\\* The paging was designed\\.\\n\\nLists things\\.`));
  });

  test('provisional fields, parameters and media types say so in their descriptions', () => {
    const thing = (...tokens: string[]) => valueAt(marked, ['components', 'schemas', 'Thing', 'properties', ...tokens]);
    expect(thing('colour', 'description')).toBe(`**${PROVISIONAL_LABEL}** The colour field was designed.`);
    expect(thing('name', 'description')).toBe('The name.');
    expect(list('parameters', '0', 'description')).toContain('The cursor was designed.');
    expect(list('responses', '200', 'description')).toContain(`**${PROVISIONAL_LABEL}** (\`text/csv\`) The CSV form was designed.`);
  });

  test('a rate-limited operation states its limit in a badge and a line, with a designed limit marked provisional', () => {
    expect(list('x-badges')).toContainEqual({ name: '30 req / 60 s', color: expect.any(String) });
    expect(list('description')).toContain('**Rate limit: 30 requests per 60 s**');
    expect(create('x-badges')).toEqual([{ name: '5 req / 10 s', color: expect.any(String) }]);
    expect(create('description')).toContain('**Rate limit: 5 requests per 10 s**');
    expect(create('description')).toContain(`${PROVISIONAL_LABEL} The numbers were designed.`);
  });

  test('a false schema becomes one Redoc draws, still matching nothing, and says the field must not be present', () => {
    const document = asDocument({
      openapi: '3.1.0',
      info: { title: 'F', version: '1' },
      paths: {},
      components: {
        schemas: {
          OneOf: {
            oneOf: [
              { type: 'object', additionalProperties: false, properties: { a: { type: 'string' }, b: false } },
              { type: 'object', additionalProperties: false, properties: { a: false, b: { type: 'string' } } },
            ],
            examples: [{ properties: { c: false } }],
          },
          Nothing: { type: 'array', items: false, allOf: [false] },
        },
      },
    });
    const copy = markForReaders(document);
    const schema = (...tokens: string[]) => valueAt(copy, ['components', 'schemas', ...tokens]);
    const forbidden = { not: {}, description: `**${FORBIDDEN_FIELD_LABEL}**` };
    expect(schema('OneOf', 'oneOf', '0', 'properties', 'b')).toEqual(forbidden);
    expect(schema('OneOf', 'oneOf', '1', 'properties', 'a')).toEqual(forbidden);
    expect(schema('OneOf', 'oneOf', '0', 'additionalProperties')).toBe(false);
    expect(schema('OneOf', 'examples')).toEqual([{ properties: { c: false } }]);
    expect(schema('Nothing', 'items')).toMatchObject({ not: {} });
    expect(schema('Nothing', 'allOf', '0')).toMatchObject({ not: {} });
  });

  test('example values are data and the bundle itself is left as it was', () => {
    expect(list('responses', '200', 'content', 'application/json', 'example')).toEqual({ 'x-provisional': 'data, not a mark', description: 'kept' });
    const original = fixture();
    markForReaders(original);
    expect(original).toEqual(fixture());
  });

  test('mail\'s /api/v1/ aliases are said in their twins\' descriptions, not kept as operations of their own', () => {
    const marked = markForReaders(asDocument(JSON.parse(readFileSync(path.join(root, 'generated/mail/openapi.json'), 'utf8'))));
    expect(valueAt(marked, ['paths', '/v1/send', 'post', 'description'])).toContain('**Also served at `POST /api/v1/send`** (operationId `sendEmailViaApiAlias`)');
    expect(valueAt(marked, ['paths', '/api/v1/send'])).toBeUndefined();
  });

  // Every generated bundle: no provisional item is left without its note where the reader sees it.
  const bundles = readdirSync(path.join(root, 'generated'))
    .map((slug) => ({ slug, file: path.join(root, 'generated', slug, 'openapi.json') }))
    .filter(({ file }) => existsSync(file));
  test.each(bundles)('$slug: each x-provisional note shows in a rendered description', ({ file }) => {
    const document = asDocument(JSON.parse(readFileSync(file, 'utf8')));
    const copy = markForReaders(document);
    const unseen = collectProvisional(document).filter(({ pointer, note }) => {
      const tokens = pointerTokens(pointer);
      // A rate limit's note is in its operation's description, a media type's in its holder's.
      const holder = tokens.at(-1) === 'x-rate-limit' ? tokens.slice(0, -1) : tokens.at(-2) === 'content' ? tokens.slice(0, -2) : tokens;
      const description = valueAt(copy, [...holder, 'description']);
      return !(typeof description === 'string' && description.includes(note.replace(/\s*\n\s*/g, ' ').trim()));
    });
    expect(unseen.map((u) => u.pointer)).toEqual([]);
  });
});

describe('console model', () => {
  test('the seo operations, both servers and the bearer header, with the credentials given', () => {
    const document = JSON.parse(readFileSync(path.join(root, 'generated/seo/openapi.json'), 'utf8'));
    const model = consoleModel('seo', document, [{ label: 'organization 1', headers: { Authorization: 'Bearer seo_test_key' } }]);
    expect(model.basePath).toBe('/seo');
    expect(model.servers.map((s) => s.url)).toEqual(['http://localhost:4000/seo', 'http://localhost:4010/seo']);
    expect(model.operations.find((o) => o.id === 'listProjects')).toMatchObject({ method: 'GET', path: '/projects', authHeaders: ['Authorization'] });
    const create = model.operations.find((o) => o.id === 'createProject');
    expect(create?.body?.mediaType).toBe('application/json');
    expect(JSON.parse(create!.body!.example)).toEqual(expect.any(Object));
    expect(model.operations.find((o) => o.id === 'getProject')?.parameters).toContainEqual(expect.objectContaining({ name: 'projectId', in: 'path', required: true }));
  });
});

describe('served by npm start', () => {
  let origin = '';
  beforeAll(async () => {
    origin = `http://127.0.0.1:${(await startedStubs()).port}`;
  });

  test('a service page embeds the marked reference and the stub\'s seeded credential, under a local-only policy', async () => {
    const res = await fetch(`${origin}/docs/seo.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('Content-Security-Policy');
    const model = JSON.parse(/<script type="application\/json" id="try-it-model">(.*?)<\/script>/s.exec(page)![1]!);
    expect(model.credentials).toContainEqual({ label: expect.any(String), headers: { Authorization: 'Bearer seo_test_key' } });
    const spec = JSON.parse(/<script type="application\/json" id="reference-spec">(.*?)<\/script>/s.exec(page)![1]!);
    expect(spec.paths['/crawl/start'].post.description).toContain('**Rate limit: 5 requests per 60 s**');
  });

  test('services.js tells the page the servers beside this one: none under npm start', async () => {
    const script = await (await fetch(`${origin}/docs/services.js`)).text();
    expect(script).toContain('window.PORTAL_SERVERS = [];');
  });

  test('Redoc is served without its CDN logo; /docs redirects to the index; an unknown page is a JSON 404', async () => {
    const redoc = await (await fetch(`${origin}/docs/redoc.standalone.js`)).text();
    expect(redoc).toContain('Redoc');
    expect(redoc).not.toContain('cdn.redoc.ly');
    const bare = await fetch(`${origin}/docs`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/docs/']);
    const missing = await fetch(`${origin}/docs/no-such-service.html`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });
});


describe.skipIf(!chromiumAvailable)('the portal in Chromium', () => {
  let stubs: PlatformServer;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    [stubs, browser] = await Promise.all([startedStubs(), sharedBrowser()]);
    origin = `http://127.0.0.1:${stubs.port}`;
  }, 60_000);

  /** Loads a service's page (at its first tag, if drawn by tag) and finds one Try it per operation of its console model. */
  async function expectOneTryItPerOperation(tab: Page, slug: string) {
    const document = JSON.parse(readFileSync(path.join(root, 'generated', slug, 'openapi.json'), 'utf8'));
    const ids = consoleModel(slug, document).operations.map((o) => o.id);
    await tab.goto(`${origin}/docs/${slug}.html`);
    await tab.locator(`button.try-it-operation[data-operation="${ids.at(-1)}"]`).waitFor({ state: 'attached' });
    const buttons = await tab.getByRole('button', { name: 'Try it', exact: true }).evaluateAll((all) => all.map((b) => b.getAttribute('data-operation')));
    expect(buttons.toSorted(), slug).toEqual(ids.toSorted());
  }

  test('from the index to the seo reference: marks visible, a request sent with the seeded key, its answer shown, nothing off the machine', async () => {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // A missing mark or answer then fails with the locator that waited, before the test's own limit.
    tab.setDefaultTimeout(20_000);
    const requested: string[] = [];
    tab.on('request', (request) => requested.push(request.url()));
    const received: Array<{ url: string; authorization: string | undefined }> = [];
    // Express, listening first, has already cut the mount path off req.url.
    const seen = (req: http.IncomingMessage & { originalUrl?: string }) => received.push({ url: req.originalUrl ?? req.url ?? '', authorization: req.headers.authorization });
    stubs.server.on('request', seen);
    try {
      await tab.goto(`${origin}/docs/`);
      const services = await tab.locator('main.index a').allTextContents();
      expect(services.length, 'every service with a bundle is listed').toBeGreaterThanOrEqual(7);
      await tab.locator('main.index a[href="./seo.html"]').click();
      await tab.waitForURL(`${origin}/docs/seo.html`);

      // Redoc renders the marks written into the descriptions and the badges (of Projects, the tag drawn first).
      // Every seo operation is published (DECISIONS P-1): its marks sit on responses and fields, so no operation badge.
      await tab.locator('#redoc h2').getByText('30 req / 60 s', { exact: true }).first().waitFor({ state: 'visible' });
      await tab.locator('#redoc strong', { hasText: PROVISIONAL_LABEL }).first().waitFor({ state: 'visible' });
      expect(await tab.locator('nav.portal a[aria-current="page"]').textContent()).toMatch(/search/i);

      await tab.locator('button.try-it-operation[data-operation="listProjects"]').click();
      const console = tab.locator('aside#try-it');
      await console.waitFor({ state: 'visible' });
      expect(await tab.locator('#ti-server').inputValue()).toBe(`${origin}/seo`);
      expect(await tab.locator('#ti-headers').inputValue()).toBe('Authorization: Bearer seo_test_key');
      await tab.locator('#ti-send').click();
      await tab.locator('#ti-status.ti-ok').waitFor({ state: 'visible' });
      expect(await tab.locator('#ti-status').textContent()).toMatch(/^HTTP 200 /);
      expect(await tab.locator('#ti-response-headers').textContent()).toMatch(/content-type: application\/json/i);
      const body = JSON.parse((await tab.locator('#ti-response-body').textContent()) ?? '');
      expect(body).toMatchObject({ projects: expect.any(Array) });
      expect(received).toContainEqual({ url: '/seo/projects', authorization: 'Bearer seo_test_key' });

      // Without the credential the same operation answers the contract's 401, shown as a failure.
      await tab.locator('#ti-credential').selectOption('');
      expect(await tab.locator('#ti-headers').inputValue()).toBe('');
      await tab.locator('#ti-send').click();
      await tab.locator('#ti-status.ti-failed').waitFor({ state: 'visible' });
      expect(await tab.locator('#ti-status').textContent()).toMatch(/^HTTP 401 /);
      await tab.locator('#ti-credential').selectOption({ label: (await tab.locator('#ti-credential option').nth(1).textContent())! });
      await tab.locator('#ti-send').click();
      await tab.locator('#ti-status.ti-ok').waitFor({ state: 'visible' });

      // Drawn whole, every tag's marks: descriptions, rate-limit lines, fields' marks in the schema tables.
      await tab.goto(`${origin}/docs/seo.html?whole`);
      const provisional = tab.locator('#redoc strong', { hasText: PROVISIONAL_LABEL });
      await provisional.first().waitFor({ state: 'visible' });
      expect(await provisional.count()).toBeGreaterThan(5);
      await tab.locator('#redoc strong', { hasText: 'Rate limit: 5 requests per 60 s' }).first().waitFor({ state: 'visible' });
      await tab.locator('#redoc td strong', { hasText: PROVISIONAL_LABEL }).first().waitFor({ state: 'visible' });

      mkdirSync(path.join(root, 'test-results'), { recursive: true });
      await tab.screenshot({ path: path.join(root, 'test-results/docs-portal.png') });

      const offMachine = requested.filter((url) => {
        const { protocol, hostname } = new URL(url);
        if (protocol === 'data:' || protocol === 'blob:') return false;
        return !['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
      });
      expect(requested.length).toBeGreaterThan(0);
      expect(offMachine).toEqual([]);
    } finally {
      stubs.server.off('request', seen);
      await tab.close();
    }
  }, 60_000);

  test('one Try it per operation, on a page drawn whole', async () => {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    tab.setDefaultTimeout(30_000);
    try {
      await expectOneTryItPerOperation(tab, 'social');
    } finally {
      await tab.close();
    }
  }, 60_000);

  test('the sidebar\'s badges show their whole text', async () => {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    tab.setDefaultTimeout(20_000);
    try {
      // Automation holds designed (provisional) operations, each rate limited; opening one expands the group.
      await tab.goto(`${origin}/docs/blog.html#tag/Automation/operation/createDraft`);
      const badges = tab.locator('.menu-content .operation-type.badge');
      // Other tags' badges are drawn too, folded away: wait for the open group's.
      const shown = tab.locator('.menu-content .operation-type.badge:visible');
      await shown.filter({ hasText: /^Provisional$/i }).first().waitFor({ state: 'visible' });
      await shown.filter({ hasText: '100 req / 60 s' }).first().waitFor({ state: 'visible' });
      const sizes = await badges.evaluateAll((all) =>
        all.filter((b) => b.getClientRects().length > 0).map((b) => ({ text: b.textContent, scrollWidth: b.scrollWidth, clientWidth: b.clientWidth, scrollHeight: b.scrollHeight, clientHeight: b.clientHeight })),
      );
      expect(sizes.length).toBeGreaterThanOrEqual(4);
      for (const size of sizes) {
        expect(size.scrollWidth, size.text ?? '').toBeLessThanOrEqual(size.clientWidth);
        expect(size.scrollHeight, size.text ?? '').toBeLessThanOrEqual(size.clientHeight);
      }
    } finally {
      await tab.close();
    }
  }, 60_000);

  // One mail tab serves the checks of the page as it first loads, then of the tag opened from it:
  // mail's reference is the largest, and each load of it is most of a test's time.
  test('mail, drawn a tag at a time: one Try it per operation, no entry for an alias; opening Templates from the sidebar draws it, with the fields a branch forbids', async () => {
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    tab.setDefaultTimeout(30_000);
    const warnings: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'warning' && /false/.test(message.text())) warnings.push(message.text());
    });
    try {
      await expectOneTryItPerOperation(tab, 'mail');
      // Mail's /api/v1/ aliases are said in their twins' entries (the reader marks' test), not drawn
      // again: every operation has its heading here, the aliases none (nor a console of their own).
      expect(await tab.locator('[data-section-id$="operation/sendEmail"]').count()).toBeGreaterThan(0);
      expect(await tab.locator('[data-section-id$="operation/sendEmailViaApiAlias"]').count()).toBe(0);
      await tab.locator('button.try-it-operation').first().waitFor({ state: 'visible' });
      expect(await tab.evaluate(() => document.documentElement.dataset.referenceTag)).toBe('OAuth');
      const render = tab.locator('[data-section-id="operation/renderTemplate"]');
      // Cut to its heading until opened; the introduction says how the page is drawn.
      await render.waitFor({ state: 'attached' });
      expect(await render.getByText(FORBIDDEN_FIELD_LABEL).count()).toBe(0);
      await tab.getByText('This page draws one tag at a time').waitFor({ state: 'visible' });
      await tab.locator('.menu-content label', { hasText: /^Templates$/ }).click();
      await tab.waitForFunction(() => document.documentElement.dataset.referenceTag === 'Templates');
      // The stored-template branch: subject, html and text must not be sent with template_id.
      const subject = render.locator('tr', { has: tab.locator('td', { hasText: /^subject$/ }) }).first();
      await subject.getByText(FORBIDDEN_FIELD_LABEL).waitFor({ state: 'visible' });
      expect(await render.getByText(FORBIDDEN_FIELD_LABEL).count()).toBeGreaterThanOrEqual(3);
      expect(warnings).toEqual([]);

    } finally {
      await tab.close();
    }
  }, 90_000);
});

describe.skipIf(!chromiumAvailable)('npm run dev on other ports than the contract\'s', () => {
  let project: ProjectCopy;
  let dev: DevServer;
  let browser: Browser;

  beforeAll(async () => {
    // A copy with seo alone: which ports the console offers does not depend on how many services run,
    // and each more service is a stub to load afresh and a Prism to start. With the build's state,
    // the copy's first build does only what the project's would (nothing, after a build).
    project = copyToolkit({ services: ['seo'], parts: ['package.json', 'server-stubs/lib', 'server-stubs/seo', 'clients/event-stream'], buildState: true });
    // Port 0 for both: the ports the console offers can only have come from the running servers.
    [dev, browser] = await Promise.all([
      startDevServer({ root: project.root, port: 0, mockPort: 0, host: '127.0.0.1', log: () => {} }),
      sharedBrowser(),
    ]);
  }, 180_000);

  afterAll(async () => {
    await dev?.close();
    project?.remove();
  });

  test('the console offers the stubs and the mock where they run, and the mock answers it', async () => {
    const origin = `http://127.0.0.1:${dev.platform.port}`;
    const mock = `http://127.0.0.1:${dev.mock!.port}`;
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    tab.setDefaultTimeout(30_000);
    try {
      await tab.goto(`${origin}/docs/seo.html`);
      await tab.locator('button.try-it-operation[data-operation="listProjects"]').click();
      const offered = await tab.locator('#ti-server option').evaluateAll((all) => all.map((o) => (o as HTMLOptionElement).value));
      expect(offered).toEqual([`${origin}/seo`, `${mock}/seo`]);
      await tab.locator('#ti-server').selectOption(`${mock}/seo`);
      await tab.locator('#ti-send').click();
      await tab.locator('#ti-status.ti-ok').waitFor({ state: 'visible' });
      expect(await tab.locator('#ti-status').textContent()).toMatch(/^HTTP 200 /);
    } finally {
      await tab.close();
    }
  }, 60_000);
});
