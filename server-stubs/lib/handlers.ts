import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import type { Principal } from './auth.js';
import type { UploadedFile } from './form-body.js';
import type { EventStream, SseFrame } from './sse.js';

/**
 * Handler types derived from openapi-typescript's `operations`: a service's handler map is written
 * `satisfies HandlerMap<operations, P, operationDefaults>`, so a missing operation, a status the
 * operation does not declare (success or failure) or a body of the wrong shape fails `tsc`.
 */

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 300 | 301 | 302 | 303 | 304 | 307 | 308;

type ContentOf<R> = R extends { content: infer C } ? C : never;
type Headers = Record<string, string>;

type ResultFor<S, R> =
  ContentOf<R> extends never
    ? { status: S; headers?: Headers }
    : ContentOf<R> extends { 'text/event-stream': infer F }
      ? { status: S; headers?: Headers; stream: (events: EventStream<F & SseFrame>) => void | Promise<void> }
      : ContentOf<R> extends { 'application/json': infer B }
        ? { status: S; headers?: Headers; body: B }
        : { status: S; headers?: Headers; contentType: Extract<keyof ContentOf<R>, string>; text: string | Uint8Array };

/**
 * An upstream answer piped through unchanged: its status, headers (less hop-by-hop ones) and body,
 * streamed as it arrives. For operations that proxy another service; the contract cannot vouch for
 * what the upstream says, so it is not validated.
 */
export interface PassthroughResult {
  passthrough: globalThis.Response;
}

export type HandlerResult<Op> =
  | (Op extends { responses: infer R } ? { [S in keyof R & SuccessStatus]: ResultFor<S, R[S]> }[keyof R & SuccessStatus] : never)
  | PassthroughResult;

/** The error statuses an operation declares; any status where it declares a range or `default`. */
export type ErrorStatus<Op> = Op extends { responses: infer R }
  ? Extract<keyof R, string> extends never
    ? Exclude<Extract<keyof R, number>, SuccessStatus>
    : number
  : never;

/** Fails the request with a declared status; the service's error mapper shapes the body. */
export type Fail<S extends number> = (
  status: S,
  code: string | undefined,
  message: string,
  extras?: Record<string, unknown>,
  headers?: Record<string, string>,
) => never;

type Part<Op, K extends string> = Op extends { parameters: infer P }
  ? P extends Record<K, infer X>
    ? [NonNullable<X>] extends [never]
      ? Record<string, never>
      : NonNullable<X>
    : Record<string, never>
  : Record<string, never>;

/** Fields the validator fills from their contract `default` are present by the time a handler runs. */
type WithDefaults<T, Keys> = [Keys] extends [never]
  ? T
  : T extends object
    ? Omit<T, Keys & keyof T> & { [K in Keys & keyof T]-?: Exclude<T[K], undefined> }
    : T;

type FirstContent<C> = C extends Record<string, unknown> ? C[keyof C] : never;

export type BodyOf<Op> = Op extends { requestBody: { content: infer C } }
  ? FirstContent<C>
  : Op extends { requestBody?: { content: infer C } }
    ? FirstContent<C> | undefined
    : undefined;

/** Per operation: which query, path, header and body fields have contract defaults (generated). */
export interface RequestDefaults {
  query?: string;
  path?: string;
  header?: string;
  body?: string;
}

type DefaultsOf<D extends RequestDefaults, K extends keyof RequestDefaults> = D[K] extends string ? D[K] : never;

export interface HandlerContext<Op, P extends Principal, D extends RequestDefaults = {}> {
  params: WithDefaults<Part<Op, 'path'>, DefaultsOf<D, 'path'>>;
  query: WithDefaults<Part<Op, 'query'>, DefaultsOf<D, 'query'>>;
  /** the request headers the operation declares, typed; every other header is on `req.headers` */
  headers: WithDefaults<Part<Op, 'header'>, DefaultsOf<D, 'header'>> & IncomingHttpHeaders;
  body: WithDefaults<BodyOf<Op>, DefaultsOf<D, 'body'>>;
  /** the exact request bytes, for operations that opt in with the router's `rawBody` option */
  rawBody: Buffer | undefined;
  /** the file parts of a multipart body (in `body` each stands as an empty string) */
  files: UploadedFile[] | undefined;
  /** the caller, set by the security handler of the operation's scheme */
  principal: P;
  fail: Fail<ErrorStatus<Op>>;
  req: Request;
  res: Response;
}

export type Handler<Op, P extends Principal, D extends RequestDefaults = {}> = (
  ctx: HandlerContext<Op, P, D>,
) => HandlerResult<Op> | Promise<HandlerResult<Op>>;

type DefaultsFor<Defaults, K> = K extends keyof Defaults ? (Defaults[K] extends RequestDefaults ? Defaults[K] : {}) : {};

export type HandlerMap<Ops, P extends Principal, Defaults = {}> = { [K in keyof Ops]: Handler<Ops[K], P, DefaultsFor<Defaults, K>> };
