import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import type { CorsOrigins } from './browser.js';
import type { Clock } from './clock.js';
import type { CoverageBook } from './coverage.js';
import type { ErrorMapper } from './errors.js';
import type { StateStore } from './store.js';

/** A running stub: a middleware (an Express router or one function) to mount at the service's base path. */
export interface StubInstance {
  router: RequestHandler;
  /**
   * WebSocket upgrades whose path starts with the base path are offered here first.
   * Return true when the upgrade was taken.
   */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** Puts the service back to its seeds (`POST /_stub/reset`); the clock stays where it is. */
  reset?: () => void | Promise<void>;
  /**
   * The service's state (one {@link StateStore} per instance): what `/_stub/state` exports and
   * imports and what `STUB_STATE_DIR` keeps across restarts and reloads. A service without it keeps nothing.
   */
  state?: Pick<StateStore, 'snapshot' | 'restore'>;
  /** Runs work that fell due on the clock (retries, expiries, jobs); `POST /_stub/clock` waits for it. */
  runDue?: () => void | Promise<void>;
  /**
   * The service's development controls, served under `/_stub/<slug>/…` from the controls contract
   * (`openapi/stub-controls/`): by name, what each does with the request's body.
   */
  controls?: Record<string, (body: string) => Promise<{ status: number; body: unknown }>>;
  /** operations of the contract without a handler: they answer 501 */
  unimplemented?: string[];
  /** Stops timers and open streams so a test or the server can exit promptly. */
  close?: () => void | Promise<void>;
}

/**
 * A seeded test credential, as a client sends it: for a security scheme of the contract, its secret.
 * The same list feeds the service's auth, the start banner and the tests.
 */
export interface StubCredential {
  label: string;
  /** the contract's security scheme name (`bearerAuth`, `sessionCookie`, ...) */
  scheme: string;
  /** the bearer token, header value or cookie value */
  value: string;
  /** a seed that must be refused (a revoked key); valid unless false */
  valid?: boolean;
  /**
   * Whose data the credential sees (organization, account, owner). Credentials of different
   * tenants must never reach each other's resources; the fuzzer checks it with ids one tenant created.
   */
  tenant?: string;
}

/** What `npm start` gives every service, so they share one clock and one set of development switches. */
export interface StubEnvironment {
  clock?: Clock;
  corsOrigins?: CorsOrigins;
  /** where the service counts the statuses it answered (`GET /_stub/coverage`); none counts nothing */
  coverage?: CoverageBook;
}

/** Framework switches an app factory takes for tests and benchmarks (everything is on by default). */
export interface RouterSwitches {
  validateRequests?: boolean;
  validateResponses?: boolean;
  rateLimits?: boolean;
  /** false: answers are not counted for `GET /_stub/coverage` (benchmarks compare against it) */
  countCoverage?: boolean;
}

/** What every app factory hands its service router from its options, unchanged. */
export function passedThrough(options: StubEnvironment & RouterSwitches) {
  return {
    corsOrigins: options.corsOrigins,
    validateRequests: options.validateRequests,
    validateResponses: options.validateResponses,
    rateLimits: options.rateLimits,
    coverage: options.countCoverage === false ? undefined : options.coverage,
  };
}

/**
 * What every `server-stubs/<slug>/app.ts` exports as its default export.
 * `server-stubs/server.ts` discovers these files, so a new service slots in by adding its folder.
 */
export interface StubService<Options = unknown> {
  slug: string;
  /** Mount point, the path of the service's `servers` URL, e.g. `/seo`. */
  basePath: string;
  title: string;
  credentials: ReadonlyArray<StubCredential>;
  /**
   * A service without seeded credentials (one served from its contract alone) takes any credential
   * its schemes describe: how each is presented (`Authorization: Bearer <any token>`), for the banner.
   */
  anyCredential?: ReadonlyArray<string>;
  /** the service's published error body (for tools that answer in it, such as the validating proxy) */
  errors?: ErrorMapper;
  create(options?: Options & StubEnvironment): StubInstance | Promise<StubInstance>;
}
