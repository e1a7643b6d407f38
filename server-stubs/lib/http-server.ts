import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express, Request, RequestHandler, Response } from 'express';

/**
 * An HTTP server for an Express app whose requests and responses are born with the app's
 * prototypes (Node's `IncomingMessage` and `ServerResponse` options), instead of `http.createServer(app)`.
 *
 * Express gives every request and response its own prototype with `Object.setPrototypeOf` as it
 * enters the app. Measured under load (bench/RESULTS.md), that call is what made a quarter to a third
 * of every request's objects survive V8's young-generation collections (0.1% in a plain Node server),
 * so each request's garbage was copied, promoted and marked again in the old generation. When the
 * prototype is already the app's, Express's call changes nothing, and the same Express app answers
 * with none of that work. Nothing else differs: the objects are Node's own, constructed by Node's constructors.
 * `listener` receives every request (the app itself unless the server routes some requests first).
 */
export function createExpressServer(app: Express, options: http.ServerOptions = {}, listener: (req: Request, res: Response) => void = app): http.Server {
  // Node's constructors are plain functions, so each is called on an object V8 made from the
  // subclass's prototype. (`Reflect.construct` with a new target does the same, but costs more per
  // request, bench/RESULTS.md; a class could not be called, so a change in Node fails at once here.)
  function AppRequest(this: http.IncomingMessage, socket: Socket) {
    http.IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, responseOptions: unknown) {
    (http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void).call(this, req, responseOptions);
  }
  AppResponse.prototype = app.response;
  const server = http.createServer(
    { ...options, IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage, ServerResponse: AppResponse as unknown as typeof http.ServerResponse },
    listener as http.RequestListener,
  );
  return closeIdleAfterReading(server);
}

/**
 * Node closes a kept-alive connection from a timer once it has been idle for the keep-alive
 * timeout. When the event loop was held past that instant (a synchronous load of seconds; the
 * fuzz's server shares the test's loop), the timer runs before the read of a request a client sent
 * on the connection meanwhile, and closing a socket over unread bytes resets that request
 * (ECONNRESET on a reused socket). So the close waits for the loop's next read of the socket: a
 * request that had arrived is answered (Node then stops the idle timer), a connection that is
 * still silent is closed as before.
 *
 * With a `timeout` listener Node leaves timed-out sockets to it; the only socket timeout the
 * servers arm is the keep-alive one (no `server.timeout`, no per-request timeouts).
 */
function closeIdleAfterReading(server: http.Server): http.Server {
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    // An immediate runs after the loop's I/O poll, which reads what the socket holds.
    setImmediate(() => {
      if (socket.bytesRead === read) socket.destroy();
    });
  });
  return server;
}

/** Whether `url` (a request target) is `basePath` or below it. */
export function isUnder(url: string, basePath: string): boolean {
  if (!url.startsWith(basePath)) return false;
  const next = url.charCodeAt(basePath.length);
  return Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f /* ? */;
}

/**
 * Runs `middleware` on a request of a server made by `createExpressServer`, as
 * `app.use(basePath, middleware)` would (`req.originalUrl`, `req.baseUrl`, `req.url` below the base
 * path, `req.res`, `res.locals`) but without the app's router: a request that passed through the
 * platform's layers and nested router paid for each layer's path match, and allocated more than the
 * service itself. When the middleware passes the request on, `fallback` gets it with its URL back.
 */
export function runMounted(
  basePath: string,
  middleware: RequestHandler,
  req: Request,
  res: Response,
  fallback: (req: Request, res: Response, error?: unknown) => void,
): void {
  const url = req.url;
  req.res = res;
  res.locals ??= Object.create(null) as Response['locals'];
  req.originalUrl = url;
  req.baseUrl = basePath;
  const rest = url.slice(basePath.length);
  req.url = rest.charCodeAt(0) === 0x2f ? rest : `/${rest}`;
  const passOn = (error?: unknown) => {
    req.url = url;
    req.baseUrl = '';
    fallback(req, res, error);
  };
  // As Express's router: a throw or a rejected promise is passed on as an error, never left to
  // crash the process.
  try {
    const returned: unknown = middleware(req, res, passOn);
    if (returned instanceof Promise) returned.catch((error: unknown) => passOn(error ?? new Error('a middleware rejected without a reason')));
  } catch (error) {
    passOn(error ?? new Error('a middleware threw without a reason'));
  }
}
