import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import type { Principal } from './auth.js';
import type { UploadedFile } from './form-body.js';
import type { Undeclared } from './exact.js';
import type { EventStream, SseFrame } from './sse.js';

/**
 * Handler types derived from openapi-typescript's `operations`: a service's handler modules build
 * their maps with `handlersFor<operations, P, operationDefaults>()` and the service joins them
 * `satisfies HandlerMap<operations, P, operationDefaults>`, so a missing operation, a status the
 * operation does not declare (success or failure), a body of the wrong shape or with a property its
 * schema does not declare fails `tsc`.
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

type Successes<Op> = Op extends { responses: infer R } ? { [S in keyof R & SuccessStatus]: ResultFor<S, R[S]> }[keyof R & SuccessStatus] : never;

export type HandlerResult<Op> = Successes<Op> | PassthroughResult;

/** `HandlerResult` by the operation's name, as a compiler message prints it: `OperationResult<operations, "getProject">`. */
export type OperationResult<Ops, K extends keyof Ops> = Successes<Ops[K]> | PassthroughResult;

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

/**
 * One parameter block as declared. openapi-typescript writes a block whose parameters are all
 * optional as an optional property (`query?: { page?: number }`): it is read through `P[K]`, as a
 * required one is, so its names stay checked.
 */
type Declared<Op, K extends string> = Op extends { parameters: infer P } ? (K extends keyof P ? NonNullable<P[K]> : never) : never;

type Part<Op, K extends string> = [Declared<Op, K>] extends [never] ? Record<string, never> : Declared<Op, K>;

/** Node lowercases every header name, and the validator coerces the declared ones there. */
type Lowercased<T> = { [K in keyof T as K extends string ? Lowercase<K> : K]: T[K] };

type HeaderPart<Op> = [Declared<Op, 'header'>] extends [never] ? {} : Lowercased<Declared<Op, 'header'>>;

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
  headers: WithDefaults<HeaderPart<Op>, Lowercase<DefaultsOf<D, 'header'>>> & IncomingHttpHeaders;
  /** the cookie parameters the operation declares, read in their style */
  cookies: Part<Op, 'cookie'>;
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

/**
 * One operation's context by its name: a compiler message about a handler then reads
 * `OperationContext<operations, "getProject", SeoPrincipal, operationDefaults>`, not the whole
 * operation type spelled out (900 characters and more).
 */
export interface OperationContext<Ops, K extends keyof Ops, P extends Principal, Defaults = {}> extends HandlerContext<Ops[K], P, DefaultsFor<Defaults, K>> {}

export type HandlerMap<Ops, P extends Principal, Defaults = {}> = {
  [K in keyof Ops]: (ctx: OperationContext<Ops, K, P, Defaults>) => OperationResult<Ops, K> | Promise<OperationResult<Ops, K>>;
};

type JsonBodyOf<Op, S> = Op extends { responses: infer R }
  ? S extends keyof R
    ? ContentOf<R[S]> extends { 'application/json': infer B }
      ? B
      : unknown
    : unknown
  : unknown;

/** What is wrong with the answers a handler gives, one message per answer with undeclared properties. */
type UndeclaredIn<Op, Name extends string, Answer> = Answer extends { status: infer S extends number; body: infer B }
  ? Undeclared<B, JsonBodyOf<Op, S>> extends infer U extends string
    ? `property '${U}' is not declared by ${Name}'s ${S} response`
    : never
  : never;

/** A handler's answers, from an `async` one too (one level: an answer is never itself a promise). */
type AnswersOf<F> = F extends (...args: never[]) => infer R ? (R extends PromiseLike<infer A> ? A : R) : never;

/**
 * Each handler as written, or, where it answers a property its schema does not declare or handles
 * an operation the contract lacks, the message saying so: the compiler then reports that handler
 * once, as not assignable to the message.
 */
export type ExactHandlers<Ops, H> = {
  [K in keyof H]: K extends keyof Ops & string
    ? [UndeclaredIn<Ops[K], K, AnswersOf<H[K]>>] extends [never]
      ? H[K]
      : UndeclaredIn<Ops[K], K, AnswersOf<H[K]>>
    : `operation '${K & string}' is not in the contract`;
};

/**
 * A service's builder of handler maps: `export const seoHandlers = handlersFor<operations,
 * SeoPrincipal, operationDefaults>()`, then in each module `return seoHandlers({ getProject: ... })`.
 * A generic call, where `satisfies` is not: the handlers' own answer types are inferred and walked
 * against the contract (a spread escapes TypeScript's excess-property check). The map comes back
 * typed as declared, so a mistake is reported once, at its handler, not again where maps are joined.
 */
export function handlersFor<Ops, P extends Principal, Defaults = {}>() {
  return <H extends Partial<HandlerMap<Ops, P, Defaults>>>(handlers: ExactHandlers<Ops, H>) =>
    handlers as unknown as Pick<HandlerMap<Ops, P, Defaults>, keyof H & keyof Ops>;
}
