/**
 * The platform's request listener: a running service's requests go to it straight from the server;
 * the rest (a service loading or broken, the docs, the controls, discovery under the issuer) through
 * the app's layers.
 */
import type { Express, Request, Response } from 'express';
import { isUnder, runMounted } from '../http-server.js';
import type { StateKeeper } from '../state-keeper.js';
import type { Fallbacks } from './fallbacks.js';
import type { ServiceSlots } from './service-slots.js';

export function routeRequests(app: Express, slots: ServiceSlots, keeper: StateKeeper, fallbacks: Fallbacks): (req: Request, res: Response) => void {
  const passedOn = (req: Request, res: Response, error?: unknown) => (error ? fallbacks.failed(error, req, res) : fallbacks.notFound(req, res));
  // What a request changed is written once it is answered (batched, within a second): one listener
  // per service, made once, so a request allocates nothing for it.
  const touchers = new Map<string, () => void>();
  const toucher = (slug: string) => touchers.get(slug) ?? touchers.set(slug, () => keeper.touched(slug)).get(slug)!;
  const keeping = keeper.folder !== undefined;
  return (req, res) => {
    for (const [basePath, slug] of slots.mountedAt) {
      if (!isUnder(req.url, basePath)) continue;
      if (keeping) res.on('close', toucher(slug));
      const instance = slots.running(slug);
      if (instance) return runMounted(basePath, instance.router, req, res, passedOn);
      break;
    }
    app(req, res);
  };
}
