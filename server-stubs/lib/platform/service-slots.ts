/**
 * What each base path of the platform serves now: a running instance, a service still loading, or
 * why it is broken (503 in the service's own error shape). A service is started, replaced (`npm run
 * dev`'s reloads) or marked broken while the server runs; requests in flight finish on the instance
 * they started on.
 */
import express from 'express';
import type { CorsOrigins } from '../browser.js';
import type { StubClock } from '../clock.js';
import type { CoverageBook } from '../coverage.js';
import type { ErrorResponse } from '../errors.js';
import { writeError } from '../results.js';
import type { RouterSwitches, StubInstance, StubService } from '../service.js';
import type { StateKeeper } from '../state-keeper.js';
import { answerIn, errorFamilies, withoutAbsolutePaths, type ErrorFamilies } from '../transport-errors.js';
import type { BrokenService, ServiceToLoad } from './discovery.js';

export interface ServiceSlotsOptions {
  clock: StubClock;
  corsOrigins: CorsOrigins;
  coverage: CoverageBook | undefined;
  switches: RouterSwitches | undefined;
  keeper: StateKeeper;
  /** the project root, kept out of the errors a broken service answers */
  root: string;
}

type Slot = { instance: StubInstance } | { broken: BrokenService } | { loading: Promise<void> };

export function sendError(res: express.Response, mapped: ErrorResponse): void {
  writeError(res.status(mapped.status).set(mapped.headers ?? {}), mapped);
}

const upsert = <T extends { slug: string }>(list: T[], entry: T) => {
  const at = list.findIndex((x) => x.slug === entry.slug);
  if (at >= 0) list[at] = entry;
  else list.push(entry);
};

export class ServiceSlots {
  /** the services running, in the order they started */
  readonly services: StubService[] = [];
  readonly instances: Array<{ slug: string; instance: StubInstance }> = [];
  readonly broken: BrokenService[] = [];
  /** Every base path's router, for the app's layers (a service loading or broken). */
  readonly router = express.Router();
  /** base path → slug */
  readonly mountedAt = new Map<string, string>();
  /** The error shapes of every service, for answers outside a service's own router. */
  readonly families: ErrorFamilies;
  /** Services whose create() threw: their error body still answers their 503. */
  private readonly failedToStart: StubService[] = [];
  private readonly slots = new Map<string, Slot>();
  /** The services expected but not loaded yet, which no request or background load has started. */
  private readonly unloaded = new Map<string, ServiceToLoad>();

  constructor(private readonly options: ServiceSlotsOptions) {
    this.families = errorFamilies(() => [...this.services, ...this.failedToStart]);
  }

  /** The running instance of a service, if it runs. */
  running(slug: string): StubInstance | undefined {
    const slot = this.slots.get(slug);
    return slot && 'instance' in slot ? slot.instance : undefined;
  }

  /** Whether some expected service has not started loading yet. */
  get anyUnloaded(): boolean {
    return this.unloaded.size > 0;
  }

  isUnloaded(slug: string): boolean {
    return this.unloaded.has(slug);
  }

  /** Creates a service's instance, which takes its predecessor's state, and serves it; a create() that throws marks it broken. */
  async start(service: StubService): Promise<void> {
    const { clock, corsOrigins, coverage, switches, keeper } = this.options;
    try {
      const instance = await service.create({ clock, corsOrigins, coverage, ...switches });
      keeper.adopt(service.slug, instance, this.instances.find((i) => i.slug === service.slug)?.instance);
      this.mount(service.slug, service.basePath);
      this.slots.set(service.slug, { instance });
      upsert(this.instances, { slug: service.slug, instance });
      upsert(this.services, service);
      const wasBroken = this.broken.findIndex((b) => b.slug === service.slug);
      if (wasBroken >= 0) this.broken.splice(wasBroken, 1);
    } catch (error) {
      if (!this.failedToStart.includes(service)) this.failedToStart.push(service);
      this.setBroken({ slug: service.slug, basePath: service.basePath, error: (error as Error).message });
    }
  }

  /** Answers 503 naming the error at the service's base path until it is started again. */
  setBroken(b: BrokenService): void {
    this.mount(b.slug, b.basePath);
    this.slots.set(b.slug, { broken: b });
    upsert(this.broken, b);
  }

  /** Serves a new version of a service in place of the running one (which is closed), or adds it. */
  async replace(service: StubService): Promise<void> {
    const previous = this.instances.find((i) => i.slug === service.slug)?.instance;
    await this.start(service);
    if (previous && this.instances.find((i) => i.slug === service.slug)?.instance !== previous) await previous.close?.();
  }

  /** Stops the running instance of a service, keeping its state for the next one, and answers 503 instead. */
  async markBroken(b: BrokenService): Promise<void> {
    const previous = this.instances.findIndex((i) => i.slug === b.slug);
    const [removed] = previous >= 0 ? this.instances.splice(previous, 1) : [];
    if (removed) {
      this.options.keeper.retire(b.slug, removed.instance);
      this.services.splice(this.services.findIndex((s) => s.slug === b.slug), 1);
      await removed.instance.close?.();
    }
    this.setBroken(b);
  }

  /** Mounts a service that is loaded later (on its first request, or in the background). */
  expect(service: ServiceToLoad): void {
    this.unloaded.set(service.slug, service);
    this.mount(service.slug, service.basePath);
  }

  /** Loads an expected service (once); its requests wait for it meanwhile. */
  load(slug: string): Promise<void> {
    const slot = this.slots.get(slug);
    if (slot) return 'loading' in slot ? slot.loading : Promise.resolve();
    const expected = this.unloaded.get(slug);
    if (!expected) return Promise.resolve();
    this.unloaded.delete(slug);
    const loading = expected.load().then(
      (service) => this.start(service),
      (error: unknown) => this.setBroken({ slug, basePath: expected.basePath, error: (error as Error).message }),
    );
    this.slots.set(slug, { loading });
    return loading;
  }

  /** Resolves once no service is loading. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.slots.values()].flatMap((slot) => ('loading' in slot ? [slot.loading] : [])));
  }

  async closeAll(): Promise<void> {
    await this.settle();
    for (const { instance } of this.instances) await instance.close?.();
  }

  private mount(slug: string, basePath: string): void {
    if (this.mountedAt.has(basePath)) return;
    this.mountedAt.set(basePath, slug);
    this.router.use(basePath, (req, res, next) => {
      const serve = () => {
        const slot = this.slots.get(slug);
        if (slot && 'instance' in slot) return slot.instance.router(req, res, next);
        const problem = withoutAbsolutePaths(slot && 'broken' in slot ? slot.broken.error : 'not loaded', this.options.root);
        sendError(res, answerIn(this.families, req.originalUrl, { kind: 'internal', status: 503, message: `The ${slug} stub failed to start: ${problem}` }));
      };
      const slot = this.slots.get(slug);
      if (slot && 'loading' in slot) void slot.loading.then(serve);
      // A lazy service mounted where its first path segment is not its slug is loaded by its own first request.
      else if (!slot && this.unloaded.has(slug)) void this.load(slug).then(serve);
      else serve();
    });
  }
}
