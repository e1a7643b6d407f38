/**
 * `npm run coverage -- --base-url URL [--service slug] [--junit FILE] [--markdown FILE] [--fail-under P]`:
 * reads what clients exercised from a server's `GET /_stub/coverage` (the stubs, the mock or the
 * validating proxy) and prints per service the operations exercised and the declared statuses
 * answered, listing what was never exercised; writes JUnit XML and Markdown reports. Exit 0; 1 when
 * `--fail-under` is given and the share of declared statuses answered is below it; 2 on bad usage or
 * when the URL cannot be reached or answers anything but a coverage report.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CoverageReport } from '../server-stubs/lib/coverage.js';
import { readOptions, writeReport } from './lib/command-line.js';

export const USAGE = `usage: npm run coverage -- --base-url URL [--service slug] [--junit FILE] [--markdown FILE] [--fail-under PERCENT]
  --base-url    the server's origin: the stubs (http://localhost:4000), the mock (:4010) or npm run proxy (:4020)
  --service     one service's slug; every service the server counted when absent
  --junit       also write JUnit XML to FILE (a test case per operation and declared status; never answered = failure)
  --markdown    also write a Markdown report to FILE
  --fail-under  exit 1 when fewer than PERCENT (0-100) of the declared statuses were answered`;

/** Why the run stops: said in one line, exit 2. */
class Unusable extends Error {}

async function fetchReport(baseUrl: string, service: string | undefined): Promise<CoverageReport> {
  let url: URL;
  try {
    url = new URL('/_stub/coverage', baseUrl);
  } catch {
    throw new Unusable(`--base-url ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (service !== undefined) url.searchParams.set('service', service);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Unusable(`cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Unusable(`${url.href} answered ${response.status} ${response.headers.get('content-type') ?? 'without a content type'}, not a coverage report: is it the stubs, the mock or npm run proxy?`);
  }
  if (response.status !== 200) {
    const error = (body as { error?: unknown } | null)?.error;
    throw new Unusable(`${url.href} answered ${response.status}${typeof error === 'string' ? `: ${error}` : ', not a coverage report'}`);
  }
  // Held to the controls contract's schema, so a report from a server of another version is named, not misread.
  // The contract (and below, the report writers) load only once a report came: a run that stops at
  // its usage or an unreachable URL answers without them.
  const { loadContract } = await import('../server-stubs/lib/contract.js');
  const validate = loadContract('stub-controls').validator(['components', 'schemas', 'CoverageReport']);
  if (!validate(body)) throw new Unusable(`${url.href} answered JSON that is not a coverage report (${validate.errors?.[0]?.instancePath || '/'} ${validate.errors?.[0]?.message ?? ''})`);
  const report = body as CoverageReport;
  if (!report.counting) throw new Unusable(`${url.origin} counts nothing: it was started with counting off`);
  return report;
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const values = readOptions(
    {
      args: argv,
      options: {
        'base-url': { type: 'string' },
        service: { type: 'string' },
        junit: { type: 'string' },
        markdown: { type: 'string' },
        'fail-under': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    },
    USAGE,
    ['base-url'],
  );
  if (typeof values === 'number') return values;
  const failUnder = values['fail-under'] === undefined ? undefined : Number(values['fail-under']);
  if (failUnder !== undefined && !(values['fail-under']!.trim() !== '' && failUnder >= 0 && failUnder <= 100)) {
    console.error(`--fail-under must be a percentage from 0 to 100, got ${JSON.stringify(values['fail-under'])}\n${USAGE}`);
    return 2;
  }
  let report: CoverageReport;
  try {
    report = await fetchReport(values['base-url']!, values.service);
  } catch (error) {
    if (!(error instanceof Unusable)) throw error;
    console.error(`npm run coverage: ${error.message}`);
    return 2;
  }
  const origin = new URL(values['base-url']!).origin;
  const { junitXml, markdownReport, statusPercent, summaryText, totalsOf } = await import('./lib/coverage-report.js');
  console.info(summaryText(report, origin));
  if (values.junit) writeReport(values.junit, junitXml(report), 'JUnit XML');
  if (values.markdown) writeReport(values.markdown, markdownReport(report, origin), 'Markdown');
  const answered = statusPercent(totalsOf(report));
  if (failUnder !== undefined && answered < failUnder) {
    console.error(`npm run coverage: ${Math.floor(answered * 10) / 10}% of the declared statuses were answered, under --fail-under ${failUnder}%`);
    return 1;
  }
  return 0;
}

// Run only as the CLI, not when a test imports it.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
