/**
 * The contract run's results as JUnit XML, for CI (`npm run contract -- --junit FILE`): one suite
 * per kind of check, in a fixed order, written by junit-report-builder (which also keeps any text a
 * server sent well-formed: characters XML cannot hold are dropped).
 */
import junitReportBuilder, { type Builder } from 'junit-report-builder';
import { CHECK_KINDS, type CheckResult } from './contract-checks/check-result.js';

// The package's types declare an ES default export, which TypeScript reads as a CommonJS module's
// `default` property; Node hands an ES module the CommonJS `module.exports`, the builder itself.
const junit = junitReportBuilder as unknown as Builder;

const seconds = (ms: number) => ms / 1000;
const totalMs = (results: CheckResult[]) => results.reduce((n, r) => n + r.ms, 0);

export function junitXml(slug: string, results: CheckResult[]): string {
  const report = junit.newBuilder().name(`contract ${slug}`);
  for (const kind of CHECK_KINDS) {
    const ofKind = results.filter((r) => r.kind === kind);
    const suite = report.testSuite().name(kind).time(seconds(totalMs(ofKind)));
    for (const result of ofKind) {
      const testCase = suite.testCase().className(`${slug}.${kind}`).name(result.name).time(seconds(result.ms));
      if (result.outcome === 'skipped') testCase.skipped().standardOutput(result.message ?? '');
      else if (result.outcome === 'failed') testCase.failure(result.message ?? '', 'contract violation').stacktrace(result.details ?? '');
    }
  }
  return `${report.build()}\n`;
}
