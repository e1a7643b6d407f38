import http from 'node:http';
import type { Express } from 'express';

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
 */
export function createExpressServer(app: Express, options: http.ServerOptions = {}): http.Server {
  // Node's constructors are plain functions, so each is called on an object V8 made from the
  // subclass's prototype. (`Reflect.construct` with a new target does the same, but measured three
  // times slower per request; a class could not be called, so a change in Node fails at once here.)
  function AppRequest(this: http.IncomingMessage, socket: import('node:net').Socket) {
    http.IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, responseOptions: unknown) {
    (http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void).call(this, req, responseOptions);
  }
  AppResponse.prototype = app.response;
  return http.createServer(
    { ...options, IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage, ServerResponse: AppResponse as unknown as typeof http.ServerResponse },
    app,
  );
}
