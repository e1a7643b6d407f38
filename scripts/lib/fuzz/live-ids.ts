/**
 * Ids that exist on the server, for valid requests. The contract's example ids mostly do not exist
 * on a fresh stub (a 404 is a fine answer, but it leaves the success paths untested), so the
 * generator may also put a placeholder id where an id goes, and the sender swaps in an id the
 * server handed out earlier in the run (harvested from 2xx answers). Generation stays a pure
 * function of the seed; only the substitution depends on what the server has answered so far, so
 * a replay may pick another id, or none (then the placeholder is sent and is simply unknown).
 */
import fc from 'fast-check';
import { parsedAnswer, type FuzzRequest, type Observed } from './wire.js';
import type { SchemaNode } from '../../../server-stubs/lib/openapi/json-schema.js';

/** A well-formed v4 UUID whose last 12 hex digits name the id kind (`projectId`, `configId`, ...). */
const PREFIX = '5eed5eed-5eed-4eed-8eed-';
const TOKEN = /5eed5eed-5eed-4eed-8eed-([0-9a-f]{12})/g;

function hash12(name: string): string {
  let h = 0x811c9dc5;
  let g = 0x01000193;
  for (const c of name) {
    h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    g = Math.imul(g ^ c.charCodeAt(0), 0x811c9dc5) >>> 0;
  }
  return (h.toString(16).padStart(8, '0') + g.toString(16).padStart(8, '0')).slice(0, 12);
}

const looksLikeId = (name: string) => name === 'id' || /Id$/.test(name) || /_id$/.test(name);

export function createLiveIds() {
  const names = new Map<string, string>(); // hash → name
  const pool = new Map<string, string[]>(); // name → ids seen, newest last
  // Ids handed out by a POST: resources the fuzzing tenant created, so another tenant must not reach them.
  const created = new Set<string>();

  function placeholder(name: string): string {
    const h = hash12(name);
    names.set(h, name);
    return `${PREFIX}${h}`;
  }

  return {
    /** For a parameter or property that holds an id: an arbitrary of its placeholder, else undefined. */
    arbitraryFor(name: string, schema: SchemaNode): fc.Arbitrary<string> | undefined {
      if (!looksLikeId(name)) return undefined;
      if (schema.type !== undefined && schema.type !== 'string') return undefined;
      if (schema.pattern || (schema.format && schema.format !== 'uuid')) return undefined;
      return fc.constant(placeholder(name));
    },

    /**
     * The request with placeholders replaced by live ids (the newest of their kind), where there are
     * some; `owned` says whether one of them is a resource the fuzzing tenant created.
     */
    substitute(r: FuzzRequest): { request: FuzzRequest; owned: boolean } {
      let owned = false;
      const swap = (text: string) =>
        text.includes(PREFIX)
          ? text.replace(TOKEN, (token, h: string) => {
              const name = names.get(h);
              const ids = name ? (pool.get(name) ?? (name === 'id' ? undefined : pool.get('id'))) : undefined;
              const id = ids?.[ids.length - 1];
              if (id === undefined) return token;
              owned ||= created.has(id);
              return id;
            })
          : text;
      const request = {
        ...r,
        path: swap(r.path),
        query: r.query.map(([k, v]) => [k, swap(v)] as [string, string]),
        body: r.body?.map((p) => (typeof p === 'string' ? swap(p) : p)),
      };
      return { request, owned };
    },

    /** Offers an id no more: the resource was removed, so later requests get the ids that still exist. */
    forget(id: string): void {
      for (const [name, ids] of pool) {
        const kept = ids.filter((x) => x !== id);
        if (kept.length) pool.set(name, kept);
        else pool.delete(name);
      }
      created.delete(id);
    },

    /** Remembers the ids of a successful answer: `*Id` fields by name, `id` also as `<resource>Id`. */
    /** `createdByOwner`: the answer went to the fuzzing tenant's own valid credential, so what a POST hands out is its. */
    harvest(template: string | undefined, o: Observed, createdByOwner = false): void {
      if (o.status < 200 || o.status >= 300 || !o.body || o.body.length > 256 * 1024) return;
      const parsed = parsedAnswer(o);
      if (!parsed.ok) return;
      const body = parsed.value;
      const literal = (template ?? '').split('/').filter((s) => s && !s.startsWith('{')).pop() ?? '';
      const resourceId = `${literal.replace(/ies$/, 'y').replace(/s$/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}Id`;
      const add = (name: string, value: unknown) => {
        if (typeof value !== 'string' || value.length === 0 || value.length > 200) return;
        const ids = pool.get(name) ?? [];
        if (ids[ids.length - 1] !== value) ids.push(value);
        if (createdByOwner) created.add(value);
        if (ids.length > 50) ids.shift();
        pool.set(name, ids);
      };
      const visit = (node: unknown, depth: number) => {
        if (depth > 2 || !node || typeof node !== 'object') return;
        if (Array.isArray(node)) return node.slice(0, 5).forEach((n) => visit(n, depth + 1));
        for (const [key, value] of Object.entries(node)) {
          if (key === 'id') {
            add('id', value);
            // A resource's own id, or the ids of a list of them (`{projects: [...]}`).
            add(resourceId, value);
          } else if (looksLikeId(key)) add(key, value);
          else visit(value, depth + 1);
        }
      };
      visit(body, 0);
    },
  };
}

export type LiveIds = ReturnType<typeof createLiveIds>;
