/**
 * The portal as `npm start` serves it at /docs: pages rendered from the committed bundles
 * (generated/<slug>/openapi.json) when asked, so they always match the contract the stubs run,
 * whether or not the build wrote generated/docs, and with the stubs' seeded credentials prefilled
 * in the console (a page opened from disk has none to offer).
 */
import express, { type Request, type Response } from 'express';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { credentialHeaders } from '../../../server-stubs/lib/auth.js';
import type { StubService } from '../../../server-stubs/lib/service.js';
import { docsAssets, generateDocsIndex, generateDocsPage, generateServicesScript, portalEntry, type PortalEntry, type PortalServer } from '../docs.js';
import type { ConsoleCredential } from './console-model.js';

export interface DocsRouterOptions {
  /** the folder holding `<slug>/openapi.json` */
  generatedDir: string;
  services: ReadonlyArray<Pick<StubService, 'slug' | 'credentials'>>;
  /** the servers running beside this one (the mock of `npm run dev`), asked on every request: the mock may start after the stubs */
  servers?: () => PortalServer[];
}

/** The seeded credentials a page can send: valid ones, and not cookies (a page's fetch cannot set `Cookie`). */
export function consoleCredentials(service: Pick<StubService, 'credentials'> | undefined, document: OpenAPI3): ConsoleCredential[] {
  return (service?.credentials ?? [])
    .filter((c) => c.valid !== false && document.components?.securitySchemes?.[c.scheme])
    .map((c) => ({ label: c.label, headers: credentialHeaders(document, c) }))
    .filter((c) => !('Cookie' in c.headers));
}

export function createDocsRouter(options: DocsRouterOptions): express.Router {
  const router = express.Router();
  // A page and a portal entry are worked out once per bundle: services.js, asked by every page,
  // walked every bundle for its counts on each load, a visible part of every page's load.
  const cache = new Map<string, { mtimeMs: number; document: OpenAPI3; page?: string; portal?: PortalEntry }>();

  /** Re-read when the build rewrote the bundle, so a running server shows the latest contract. */
  const bundle = (slug: string) => {
    const file = path.join(options.generatedDir, slug, 'openapi.json');
    if (!/^[a-z0-9-]+$/.test(slug) || !existsSync(file)) return undefined;
    const mtimeMs = statSync(file).mtimeMs;
    let entry = cache.get(slug);
    if (!entry || entry.mtimeMs !== mtimeMs) {
      entry = { mtimeMs, document: JSON.parse(readFileSync(file, 'utf8')) };
      cache.set(slug, entry);
    }
    return entry;
  };
  const entries = (): PortalEntry[] =>
    readdirSync(options.generatedDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .flatMap((slug) => {
        const b = bundle(slug);
        return b ? [(b.portal ??= portalEntry(slug, b.document))] : [];
      });

  const html = (res: Response, body: string) => res.type('html').set('Cache-Control', 'no-cache').send(body);
  router.get(['/', '/index.html'], (req: Request, res: Response) => {
    // Relative links in the pages need the trailing slash.
    if (req.originalUrl.split('?')[0] === req.baseUrl) return res.redirect(301, `${req.baseUrl}/`);
    html(res, generateDocsIndex(entries()));
  });
  router.get('/services.js', (_req, res) => {
    res.type('application/javascript').set('Cache-Control', 'no-cache').send(generateServicesScript(entries(), options.servers?.() ?? []));
  });
  for (const [name, contents] of Object.entries(docsAssets())) {
    router.get(`/${name}`, (_req, res) => res.type(path.extname(name)).set('Cache-Control', 'no-cache').send(contents));
  }
  router.get('/:page', (req, res, next) => {
    const slug = req.params.page!.replace(/\.html$/, '');
    const b = bundle(slug);
    if (!b) return next();
    b.page ??= generateDocsPage(slug, b.document, { credentials: consoleCredentials(options.services.find((s) => s.slug === slug), b.document) });
    html(res, b.page);
  });
  return router;
}
