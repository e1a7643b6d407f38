/**
 * What `npm run coverage` makes of a server's `GET /_stub/coverage` (server-stubs/lib/coverage.ts):
 * a summary for the terminal, JUnit XML for a CI job's test report (a suite per service, a test case
 * per operation and declared status, never exercised = failure) and Markdown for a pull request.
 */
import junitModule, { type Builder } from 'junit-report-builder';
import { markdownTable } from 'markdown-table';
import type { CoverageReport, OperationCoverage, ServiceCoverage } from '../../server-stubs/lib/coverage.js';

// The package's types declare an ES default export; its CommonJS build exports the builder itself, which is what Node's default import gives.
const junit = junitModule as unknown as Builder;

export interface CoverageTotals {
  operations: number;
  operationsExercised: number;
  statuses: number;
  statusesExercised: number;
}

/** The totals over every service of the report. */
export function totalsOf(report: CoverageReport): CoverageTotals {
  const totals: CoverageTotals = { operations: 0, operationsExercised: 0, statuses: 0, statusesExercised: 0 };
  for (const { summary } of report.services) {
    totals.operations += summary.operations;
    totals.operationsExercised += summary.operationsExercised;
    totals.statuses += summary.statuses;
    totals.statusesExercised += summary.statusesExercised;
  }
  return totals;
}

/** The share of declared statuses answered, in percent (100 where nothing is declared): what `--fail-under` holds. */
export function statusPercent(totals: CoverageTotals): number {
  return totals.statuses === 0 ? 100 : (100 * totals.statusesExercised) / totals.statuses;
}

const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${Math.floor((1000 * part) / whole) / 10}%`);
const request = (operation: OperationCoverage) => `${operation.method} ${operation.path}`;
const neverAnswered = (operation: OperationCoverage) => operation.declared.filter((d) => d.count === 0).map((d) => d.status);
const undeclared = (operation: OperationCoverage) => operation.answered.filter((a) => a.declared === null);

/** The terminal summary: per service, operations exercised / declared, statuses answered / declared, and what was never exercised. */
export function summaryText(report: CoverageReport, origin: string): string {
  const lines = [`Coverage of what clients exercised at ${origin}`];
  for (const service of report.services) {
    const { summary } = service;
    lines.push(
      '',
      `${service.service} (since ${service.since}): ${summary.operationsExercised}/${summary.operations} operations exercised (${percent(summary.operationsExercised, summary.operations)}), ` +
        `${summary.statusesExercised}/${summary.statuses} declared statuses answered (${percent(summary.statusesExercised, summary.statuses)}), ${summary.requests} requests`,
    );
    const never = service.operations.filter((o) => o.requests === 0);
    if (never.length > 0) lines.push(`  never exercised (${never.length}):`, ...never.map((o) => `    ${o.operationId}  ${request(o)}`));
    for (const operation of service.operations) {
      for (const answer of undeclared(operation)) lines.push(`  answered a status the contract does not declare: ${operation.operationId} ${answer.status} (${answer.count}x)`);
    }
    if (service.unmatched.requests > 0) {
      const routes = service.unmatched.routes.map((r) => `${r.method} ${r.path} → ${r.status} (${r.count}x)`);
      lines.push(`  requests that addressed no operation: ${service.unmatched.requests}${routes.length ? `: ${routes.slice(0, 10).join('; ')}${routes.length > 10 ? '; …' : ''}` : ''}`);
    }
  }
  const totals = totalsOf(report);
  lines.push(
    '',
    `Total: ${totals.operationsExercised}/${totals.operations} operations (${percent(totals.operationsExercised, totals.operations)}), ` +
      `${totals.statusesExercised}/${totals.statuses} declared statuses (${percent(totals.statusesExercised, totals.statuses)})`,
  );
  return lines.join('\n');
}

/** JUnit XML: a suite per service, a test case per operation and declared status; a status never answered fails. */
export function junitXml(report: CoverageReport): string {
  const builder = junit.newBuilder();
  for (const service of report.services) {
    const suite = builder.testSuite().name(`coverage ${service.service}`);
    for (const operation of service.operations) {
      for (const declared of operation.declared) {
        const testCase = suite.testCase().className(`${service.service}.${operation.operationId}`).name(`${operation.operationId} ${declared.status} (${request(operation)})`);
        if (declared.count > 0) testCase.standardOutput(`answered ${declared.count} time${declared.count === 1 ? '' : 's'}`);
        else testCase.failure(`${request(operation)} never answered ${declared.status}${operation.requests === 0 ? ': the operation was never exercised' : ''}`, 'not exercised');
      }
    }
  }
  return builder.build();
}

/** Markdown: a table of the services, then per service a table of its operations. */
export function markdownReport(report: CoverageReport, origin: string): string {
  const totals = totalsOf(report);
  const sections = [
    '# Contract coverage',
    '',
    `What clients exercised at ${origin}: per operation, the declared statuses answered.`,
    '',
    markdownTable(
      [
        ['service', 'operations exercised', 'declared statuses answered', 'requests'],
        ...report.services.map((s) => [s.service, fraction(s.summary.operationsExercised, s.summary.operations), fraction(s.summary.statusesExercised, s.summary.statuses), String(s.summary.requests)]),
        ['**total**', fraction(totals.operationsExercised, totals.operations), fraction(totals.statusesExercised, totals.statuses), ''],
      ],
      { align: ['l', 'r', 'r', 'r'] },
    ),
  ];
  for (const service of report.services) sections.push('', `## ${service.service}`, '', serviceTable(service));
  return `${sections.join('\n')}\n`;
}

const fraction = (part: number, whole: number) => `${part}/${whole} (${percent(part, whole)})`;

function serviceTable(service: ServiceCoverage): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return markdownTable(
    [
      ['operation', 'request', 'requests', 'answered', 'never answered'],
      ...service.operations.map((o) => [
        cell(o.operationId),
        cell(`\`${request(o)}\``),
        String(o.requests),
        o.answered.map((a) => `${a.status}${a.declared === null ? ' (undeclared)' : a.declared === String(a.status) ? '' : ` (as ${a.declared})`} ×${a.count}`).join(', '),
        neverAnswered(o).join(', '),
      ]),
    ],
    { align: ['l', 'l', 'r', 'l', 'l'] },
  );
}
