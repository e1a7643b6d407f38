/**
 * `GET /_stub/state` and `PUT /_stub/state` (CONVENTIONS §6): the services' state as one JSON
 * document, `{"format": 1, "exportedAt", "services": {"<slug>": {collections, cells}}}`, and back.
 * A team saves a scenario's data once and starts every test from it.
 */
import type { StateExport, ServiceState } from '../../generated/stub-controls/types.gen.js';
import type { StubInstance } from './service.js';
import { stateFormat } from './state-dir.js';

type Running = ReadonlyArray<{ slug: string; instance: StubInstance }>;

/** An export or import that cannot be done; `status` is the controls' answer (404 unknown service, 400 a bad import). */
export class StateRequestRefused extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

const known = (services: Running) => services.filter(({ instance }) => instance.state).map(({ slug }) => slug).join(', ') || 'none';

/** The state of every service that keeps one, or of `only`. */
export function exportState(services: Running, only?: string): StateExport {
  const chosen = only === undefined ? services : services.filter(({ slug }) => slug === only);
  if (only !== undefined) {
    const found = chosen[0];
    if (!found) throw new StateRequestRefused(404, `No service "${only}" (services with state: ${known(services)})`);
    if (!found.instance.state) throw new StateRequestRefused(404, `The ${only} stub keeps no state (services with state: ${known(services)})`);
  }
  const exported: Record<string, ServiceState> = {};
  // A store's rows are objects or arrays (StateStore.restore refuses anything else), as the contract says.
  for (const { slug, instance } of chosen) if (instance.state) exported[slug] = instance.state.snapshot() as ServiceState;
  return { format: stateFormat, exportedAt: new Date().toISOString(), services: exported };
}

/**
 * Loads an export: each service it names is replaced by its state, the others are untouched. All
 * or nothing: when a service refuses its part, the services already loaded get their state back.
 * Answers the slugs loaded.
 */
export function importState(services: Running, exported: unknown): string[] {
  const body = exported as Partial<StateExport> | null;
  // The contract checked the shape already; these checks hold for a caller that skips it (tests, tools).
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new StateRequestRefused(400, 'The import must be an export of GET /_stub/state: {"format", "services"}');
  if (body.format !== stateFormat) throw new StateRequestRefused(400, `format ${JSON.stringify(body.format ?? null)}: this server reads format ${stateFormat}`);
  const parts = body.services;
  if (parts === null || typeof parts !== 'object' || Array.isArray(parts)) throw new StateRequestRefused(400, '"services" must be an object of states by service slug');
  const targets = Object.keys(parts).map((slug) => {
    const running = services.find((s) => s.slug === slug);
    if (!running) throw new StateRequestRefused(400, `${slug}: no such service (services with state: ${known(services)})`);
    const state = running.instance.state;
    if (!state) throw new StateRequestRefused(400, `${slug}: this service keeps no state (services with state: ${known(services)})`);
    return { slug, state };
  });
  // A snapshot shares its rows with the store, and restore puts copies in: the rows taken here are
  // the ones a failed import puts back.
  const before = targets.map(({ slug, state }) => ({ slug, state, snapshot: state.snapshot() }));
  const loaded: typeof before = [];
  for (const target of before) {
    try {
      target.state.restore(parts[target.slug]);
      loaded.push(target);
    } catch (error) {
      for (const done of loaded) done.state.restore(done.snapshot);
      throw new StateRequestRefused(400, `${target.slug}: ${(error as Error).message}`);
    }
  }
  return loaded.map(({ slug }) => slug);
}
