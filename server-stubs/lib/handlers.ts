import type { Request, Response } from 'express';
import type { Principal } from './auth.js';
import type { EventStream, SseFrame } from './sse.js';

/**
 * Handler types derived from openapi-typescript's `operations`: a service's handler map is written
 * `satisfies HandlerMap<operations, P>`, so a missing operation, a wrong status or a body of the wrong
 * shape fails `tsc`. Handlers return successes; failures are thrown as ApiError.
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
        : { status: S; headers?: Headers; contentType: Extract<keyof ContentOf<R>, string>; text: string };

export type HandlerResult<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: ResultFor<S, R[S]> }[keyof R & SuccessStatus]
  : never;

type Part<Op, K extends string> = Op extends { parameters: infer P }
  ? P extends Record<K, infer X>
    ? [NonNullable<X>] extends [never]
      ? Record<string, never>
      : NonNullable<X>
    : Record<string, never>
  : Record<string, never>;

type FirstContent<C> = C extends Record<string, unknown> ? C[keyof C] : never;

export type BodyOf<Op> = Op extends { requestBody: { content: infer C } }
  ? FirstContent<C>
  : Op extends { requestBody?: { content: infer C } }
    ? FirstContent<C> | undefined
    : undefined;

export interface HandlerContext<Op, P extends Principal> {
  params: Part<Op, 'path'>;
  query: Part<Op, 'query'>;
  body: BodyOf<Op>;
  /** the caller, set by the security handler of the operation's scheme */
  principal: P;
  req: Request;
  res: Response;
}

export type Handler<Op, P extends Principal> = (
  ctx: HandlerContext<Op, P>,
) => HandlerResult<Op> | Promise<HandlerResult<Op>>;

export type HandlerMap<Ops, P extends Principal> = { [K in keyof Ops]: Handler<Ops[K], P> };
