/** What every benchmark suite (bench/suites/<name>.ts) returns to `npm run bench`. */
export interface Target {
  /** what is measured and the bar, e.g. `seo stub / Prism, read (≥ 6)` */
  name: string;
  /** the figure, in the unit the name gives */
  measured: number | string;
  met: boolean;
}

export interface SuiteResult {
  /** the section written into bench/RESULTS.md (markdown, starting with a `## ` heading) */
  markdown: string;
  targets: Target[];
}

export interface Suite {
  /** one line: what it measures */
  description: string;
  run(): Promise<SuiteResult>;
}
