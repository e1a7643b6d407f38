/**
 * `npm run where`'s answers: for an operation, where its contract, schemas, handler, tests and
 * generated types live. Every answer names a file and line of the working tree, so an answer that
 * has gone stale is a failing test (test/toolkit/where.test.ts walks every operation).
 */
import { closeMatches, lookUp, operationCatalogue, type CatalogueEntry } from './catalogue.js';
import { CodeFiles, handlerOf, testsOf, typesOf, type HandlerAnswer } from './code.js';
import { SourceFiles, type SourceLocation } from './source.js';
import { schemasOf, specOf, type SchemaAnswer, type SpecAnswer } from './spec.js';

export type { CatalogueEntry } from './catalogue.js';
export type { HandlerAnswer } from './code.js';
export type { SourceLocation } from './source.js';

export interface WhereAnswer {
  service: string;
  operationId: string;
  /** `POST /mail/v1/send`, as a client calls it */
  route: string;
  spec?: Omit<SpecAnswer, 'pointer'>;
  schemas: SchemaAnswer[];
  handler: HandlerAnswer;
  tests: string[];
  types?: SourceLocation;
}

export type WhereResult = { found: WhereAnswer[] } | { found: []; closeMatches: string[] };

/** Answers a query over one project; the files read are kept for the next query. */
export class Where {
  readonly catalogue: CatalogueEntry[];
  private readonly sources: SourceFiles;
  private readonly code: CodeFiles;

  constructor(readonly root: string) {
    this.catalogue = operationCatalogue(root);
    this.sources = new SourceFiles(root);
    this.code = new CodeFiles(root);
  }

  /** `query`: an operationId or `METHOD /path`. */
  query(query: string): WhereResult {
    const found = lookUp(this.catalogue, query);
    if (found.length === 0) return { found: [], closeMatches: closeMatches(this.catalogue, query) };
    return { found: found.map((entry) => this.answer(entry)) };
  }

  answer(entry: CatalogueEntry): WhereAnswer {
    const spec = specOf(this.sources, entry, this.catalogue);
    return {
      service: entry.service.slug,
      operationId: entry.operation.id,
      route: `${entry.operation.method.toUpperCase()} ${entry.servedPath}`,
      ...(spec && { spec: { file: spec.file, line: spec.line, ...(spec.note && { note: spec.note }) } }),
      schemas: spec ? schemasOf(this.sources, spec) : [],
      handler: handlerOf(this.code, entry),
      tests: testsOf(this.code, entry),
      ...(typesOf(this.code, entry) && { types: typesOf(this.code, entry) }),
    };
  }
}

/** The answer as `npm run where` prints it. */
export function formatAnswer(answer: WhereAnswer): string {
  const at = (location: SourceLocation) => `${location.file}:${location.line}`;
  const rows: Array<[string, string]> = [];
  rows.push(['spec', answer.spec ? at(answer.spec) + (answer.spec.note ? `  (${answer.spec.note})` : '') : '(not found in the source)']);
  if (answer.schemas.length === 0) rows.push(['schemas', '(none named)']);
  for (const [i, schema] of answer.schemas.entries()) rows.push([i === 0 ? 'schemas' : '', `${schema.name}  ${at(schema)}`]);
  const handler = answer.handler;
  rows.push(['handler', 'file' in handler ? at(handler) + (handler.note ? `  (${handler.note})` : '') : `(${handler.note})`]);
  if (answer.tests.length === 0) rows.push(['tests', '(none mention it)']);
  for (const [i, test] of answer.tests.entries()) rows.push([i === 0 ? 'tests' : '', test]);
  rows.push(['types', answer.types ? `${at(answer.types)}  operations['${answer.operationId}']` : '(none generated)']);
  return [`${answer.route}  ${answer.operationId}  (${answer.service})`, ...rows.map(([label, value]) => `  ${label.padEnd(9)}${value}`)].join('\n');
}
