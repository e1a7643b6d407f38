/**
 * `npm start` listens first and loads each service on its first request or in the background,
 * whichever comes first, so one service's first answer does not wait for every other service's modules.
 */
import type { RequestHandler } from 'express';
import type { ServiceSlots } from './service-slots.js';

/** The first request to a service starts its loading (a base path is `/<slug>` by convention); once every service is loaded, requests pass straight on. */
export function loadOnFirstRequest(slots: ServiceSlots): RequestHandler {
  return (req, _res, next) => {
    if (!slots.anyUnloaded) return next();
    const slug = req.path.split('/', 2)[1];
    if (slug !== undefined && slots.isUnloaded(slug)) void slots.load(slug);
    next();
  };
}

/** Loads the services one after another once the first requests had their turn; `done` is called when all are loaded. */
export function loadInBackground(slots: ServiceSlots, slugs: string[], done: () => void): void {
  setTimeout(() => void slugs.reduce((previous, slug) => previous.then(() => slots.load(slug)), Promise.resolve()).then(done), 250).unref();
}
