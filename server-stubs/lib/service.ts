import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Router } from 'express';

/** A running stub: an Express router to mount at the service's base path. */
export interface StubInstance {
  router: Router;
  /**
   * WebSocket upgrades whose path starts with the base path are offered here first.
   * Return true when the upgrade was taken.
   */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** Stops timers and open streams so a test or the server can exit promptly. */
  close?: () => void | Promise<void>;
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
  /** Seeded test credentials, printed by `npm start`. */
  credentials: ReadonlyArray<{ label: string; value: string }>;
  create(options?: Options): StubInstance | Promise<StubInstance>;
}
