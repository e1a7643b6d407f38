/**
 * Coverage of what clients exercised (CONVENTIONS §6 "State and coverage"): per service and
 * operationId, the statuses answered with their counts beside the statuses the contract declares,
 * and apart from them the requests that addressed no operation. One mechanism for the three servers
 * that answer clients: the stubs (service-router.ts), the mock (mock/front.ts) and the validating
 * proxy (proxy.ts). Each request is counted once its response closes, with the status it went out with.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CoverageReport } from '../../generated/stub-controls/types.gen.js';
import { declaredStatuses, responseKeyFor, type Contract, type OperationInfo } from './contract.js';

/** Distinct unmatched method + path + status entries kept per service; the rest are only counted, so a fuzzer cannot grow memory without bound. */
export const UNMATCHED_ROUTES_KEPT = 100;
/** A longer unmatched path is kept cut to this many characters. */
const UNMATCHED_PATH_KEPT = 200;

/** The answer of `GET /_stub/coverage`, as the controls contract (openapi/stub-controls/) declares it. */
export type { CoverageReport };
export type ServiceCoverage = CoverageReport['services'][number];
export type OperationCoverage = ServiceCoverage['operations'][number];

/** The counts of one service, against the declared statuses of its contract. */
export class CoverageCounter {
  private contract: Contract;
  /** operationId → answered status → count; kept by id so a reloaded contract keeps its counts */
  private answered = new Map<string, Map<number, number>>();
  private unmatchedRoutes = new Map<string, { method: string; path: string; status: number; count: number }>();
  private unmatchedRequests = 0;
  private unmatchedNotListed = 0;
  private since = new Date();

  constructor(contract: Contract) {
    this.contract = contract;
  }

  get slug(): string {
    return this.contract.slug;
  }

  /** A new version of the service's contract (a dev reload): counts so far are kept, by operationId. */
  useContract(contract: Contract): void {
    this.contract = contract;
  }

  count(operation: OperationInfo, status: number): void {
    let statuses = this.answered.get(operation.id);
    if (!statuses) this.answered.set(operation.id, (statuses = new Map()));
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }

  countUnmatched(method: string, path: string, status: number): void {
    this.unmatchedRequests++;
    const kept = path.length > UNMATCHED_PATH_KEPT ? `${path.slice(0, UNMATCHED_PATH_KEPT)}…` : path;
    const key = `${status} ${method} ${kept}`;
    const route = this.unmatchedRoutes.get(key);
    if (route) route.count++;
    else if (this.unmatchedRoutes.size < UNMATCHED_ROUTES_KEPT) this.unmatchedRoutes.set(key, { method, path: kept, status, count: 1 });
    else this.unmatchedNotListed++;
  }

  clear(): void {
    this.answered.clear();
    this.unmatchedRoutes.clear();
    this.unmatchedRequests = 0;
    this.unmatchedNotListed = 0;
    this.since = new Date();
  }

  report(): ServiceCoverage {
    const operations = [...this.contract.operations.values()].map((operation) => this.operationReport(operation));
    const declared = operations.flatMap((o) => o.declared);
    return {
      service: this.contract.slug,
      since: this.since.toISOString(),
      summary: {
        operations: operations.length,
        operationsExercised: operations.filter((o) => o.requests > 0).length,
        statuses: declared.length,
        statusesExercised: declared.filter((d) => d.count > 0).length,
        requests: operations.reduce((sum, o) => sum + o.requests, 0) + this.unmatchedRequests,
      },
      operations,
      unmatched: { requests: this.unmatchedRequests, routes: [...this.unmatchedRoutes.values()].map((r) => ({ ...r })), notListed: this.unmatchedNotListed },
    };
  }

  private operationReport(operation: OperationInfo): OperationCoverage {
    const statuses = [...(this.answered.get(operation.id) ?? [])].sort(([a], [b]) => a - b);
    const answered = statuses.map(([status, count]) => ({ status, count, declared: responseKeyFor(operation, status) ?? null }));
    const aliasOf: unknown = operation.op['x-alias-of'];
    return {
      operationId: operation.id,
      method: operation.method.toUpperCase(),
      path: operation.path,
      ...(typeof aliasOf === 'string' ? { aliasOf } : {}),
      requests: answered.reduce((sum, a) => sum + a.count, 0),
      declared: declaredStatuses(operation).map((status) => ({ status, count: answered.filter((a) => a.declared === status).reduce((sum, a) => sum + a.count, 0) })),
      answered,
    };
  }
}

/** The counters of every service one server answers for: what `GET /_stub/coverage` reads. */
export class CoverageBook {
  private readonly counters = new Map<string, CoverageCounter>();

  /** The counter of a contract's service; a second contract of the same slug (a reload) takes over its counter and keeps its counts. */
  service(contract: Contract): CoverageCounter {
    const counter = this.counters.get(contract.slug);
    if (counter) {
      counter.useContract(contract);
      return counter;
    }
    const created = new CoverageCounter(contract);
    this.counters.set(contract.slug, created);
    return created;
  }

  has(slug: string): boolean {
    return this.counters.has(slug);
  }

  /** Every service's coverage, or one's, sorted by slug. */
  report(slug?: string): CoverageReport {
    const counters = [...this.counters.values()].filter((c) => slug === undefined || c.slug === slug).sort((a, b) => a.slug.localeCompare(b.slug));
    return { counting: true, services: counters.map((c) => c.report()) };
  }

  /** Starts a fresh count for every service, or one; answers the slugs cleared. */
  clear(slug?: string): string[] {
    const counters = [...this.counters.values()].filter((c) => slug === undefined || c.slug === slug);
    for (const counter of counters) counter.clear();
    return counters.map((c) => c.slug).sort();
  }
}

/** What a request was known to address once its response closes: the operation, or none (404, 405). */
export type OperationOf = (req: IncomingMessage, res: ServerResponse) => OperationInfo | undefined;

/**
 * A middleware that counts each request once its response closes (finished, or a stream the client
 * left), with the status it went out with; a request whose client left before any answer counts
 * nothing. One listener per counter, not a closure per request: it is on every request of the stubs.
 * An OPTIONS no operation takes (a CORS preflight, the `Allow` answer) is the browser's, not a call
 * of the contract, and is not counted.
 */
export function countAnswers(counter: CoverageCounter, operationOf: OperationOf) {
  function counted(this: ServerResponse) {
    if (!this.headersSent) return;
    const req = this.req;
    const operation = operationOf(req, this);
    if (operation) return counter.count(operation, this.statusCode);
    if (req.method === 'OPTIONS') return;
    const target = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const query = target.indexOf('?');
    counter.countUnmatched(req.method ?? 'GET', query === -1 ? target : target.slice(0, query), this.statusCode);
  }
  return (_req: IncomingMessage, res: ServerResponse, next: () => void) => {
    res.on('close', counted);
    next();
  };
}

/** An answer of `/_stub/coverage` as every server gives it: status and JSON body (`{error}` when refused). */
export type CoverageAnswer<Body> = { status: 200; body: Body } | { status: 404; body: { error: string } };

/** `GET /_stub/coverage[?service=<slug>]`; without a book (counting off), an empty report that says so. */
export function readCoverage(book: CoverageBook | undefined, slug: string | undefined): CoverageAnswer<CoverageReport> {
  if (slug !== undefined && !book?.has(slug)) return unknownService(slug);
  return { status: 200, body: book ? book.report(slug) : { counting: false, services: [] } };
}

/** `DELETE /_stub/coverage[?service=<slug>]`: a fresh count; answers the services cleared. */
export function clearCoverage(book: CoverageBook | undefined, slug: string | undefined): CoverageAnswer<{ cleared: string[] }> {
  if (slug !== undefined && !book?.has(slug)) return unknownService(slug);
  return { status: 200, body: { cleared: book ? book.clear(slug) : [] } };
}

const unknownService = (slug: string) => ({ status: 404 as const, body: { error: `No service ${JSON.stringify(slug)} is counted here` } });

/**
 * `/_stub/coverage` for a server without the controls contract's router (the mock, the validating
 * proxy): the same answers as the stubs' controls, and 405 with `Allow` for any other method.
 */
export function coverageEndpoint(book: CoverageBook | undefined) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const slug = url.searchParams.get('service') ?? undefined;
    const answer: { status: number; body: unknown } =
      slug === ''
        ? { status: 400, body: { error: 'query.service must NOT have fewer than 1 characters' } }
        : req.method === 'GET' || req.method === 'HEAD'
          ? readCoverage(book, slug)
          : req.method === 'DELETE'
            ? clearCoverage(book, slug)
            : { status: 405, body: { error: `Method ${req.method} is not allowed on /_stub/coverage; allowed: GET, HEAD, DELETE` } };
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...(answer.status === 405 ? { allow: 'GET, HEAD, DELETE' } : {}) });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}
