import express from 'express';
import type { AddressInfo } from 'node:net';
import { createExpressServer } from '../../server-stubs/lib/http-server.js';
import { answerClientErrors, errorFamilies } from '../../server-stubs/lib/transport-errors.js';
import type { ErrorMapper } from '../../server-stubs/lib/errors.js';
import type { StubInstance } from '../../server-stubs/lib/service.js';

export interface RunningStub {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** origin plus the service's base path: what a client uses as baseUrl */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Serves one stub instance on an ephemeral loopback port, mounted at its base path; with `errors`,
 * what Node refuses itself is answered in that service's error body, as `npm start` answers it.
 */
export async function serveStub(instance: StubInstance, basePath: string, errors?: ErrorMapper): Promise<RunningStub> {
  const app = express();
  app.use(basePath, instance.router);
  const server = answerClientErrors(createExpressServer(app), errors && errorFamilies(() => [{ basePath, errors }]));
  server.on('upgrade', (req, socket, head) => {
    if (!instance.upgrade?.(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}${basePath}`,
    close: async () => {
      await instance.close?.();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
