/**
 * What a run against a shared, stateful server leaves behind. The fuzzer creates resources with its
 * valid requests (a hundred projects with megabyte names, say), the scenario and the examples a few
 * more; a teammate's stub should not keep them. Each resource a POST of the run created is deleted
 * at the end where the contract has a DELETE for it (`DELETE /projects/{projectId}` beside
 * `POST /projects`), with the credential that created it; the rest are counted, so the report says
 * what stayed and where.
 */
import type { OperationModel, ServiceModel } from './contract-model.js';
import { parsedAnswer, type FuzzRequest, type Observed } from './wire.js';

export interface Created {
  /** the collection the POST went to: `/projects` */
  collection: string;
  id: string;
  /** the credential headers the POST was sent with (absent: the DELETE operation's own valid one) */
  credentials?: Record<string, string>;
}

export interface CleanupReport {
  removed: number;
  /** per collection, how many resources stayed and why */
  left: Array<{ collection: string; count: number; why: string }>;
}

/** The id an answer to a POST gives its new resource: the `Location` header's last segment, else the first `id` in the body. */
function createdId(observed: Observed): string | undefined {
  const location = observed.headers.location;
  if (typeof location === 'string' && location) return decodeURIComponent(location.split('?')[0]!.split('/').filter(Boolean).pop() ?? '') || undefined;
  const parsed = parsedAnswer(observed);
  if (!parsed.ok) return undefined;
  const body = parsed.value;
  const find = (node: unknown, depth: number): string | undefined => {
    if (depth > 2 || node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    const id = (node as Record<string, unknown>).id;
    if (typeof id === 'string' && id.length > 0 && id.length <= 200) return id;
    for (const value of Object.values(node)) {
      const found = find(value, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return find(body, 0);
}

/** Deleted, or deleted already (by the run itself, say): gone all the same. */
export const gone = (answer: Observed) => (answer.status >= 200 && answer.status < 300) || answer.status === 404 || answer.status === 410;

export function createCleanup(model: ServiceModel) {
  const created: Created[] = [];
  /** The DELETE of one member of a collection, if the contract has it. */
  const deleteOf = (collection: string): OperationModel | undefined =>
    model.operations.find((o) => o.operation.method === 'delete' && new RegExp(`^${collection.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\{[^/}]+\\}$`).test(o.operation.path));

  /** The DELETE of a resource the run created, with the credential that created it, else the DELETE operation's own valid one. */
  function deleteRequest({ collection, id, credentials }: Created): FuzzRequest | undefined {
    const operation = deleteOf(collection);
    if (!operation) return undefined;
    const path = operation.operation.path.replace(/\{[^/}]+\}$/, encodeURIComponent(id));
    const { valid, validQuery } = operation.credentials;
    return credentials
      ? { case: 'cleanup', method: 'DELETE', path, query: [], headers: credentials, expect: 'any' }
      : { case: 'cleanup', method: 'DELETE', path, query: validQuery ?? [], headers: { ...(valid ?? {}) }, expect: 'any' };
  }

  return {
    /**
     * Notes what a request to the path `template` created: a POST answered 2xx, by whoever's
     * `credentials`; answers the resource noted, if any.
     */
    record(template: string | undefined, method: string, observed: Observed, credentials?: Record<string, string>): Created | undefined {
      if (!template || method.toUpperCase() !== 'POST' || observed.status < 200 || observed.status >= 300) return undefined;
      // An action (a send, an enable) answers 200 with an id too: only what the answer says it created
      // (201, a Location) or what the contract lets one delete is a resource left on the server.
      if (observed.status !== 201 && !observed.headers.location && !deleteOf(template)) return undefined;
      const id = createdId(observed);
      if (!id) return undefined;
      const entry: Created = { collection: template, id, credentials };
      created.push(entry);
      return entry;
    },

    /**
     * Deletes one resource the run created, now rather than at the end; answers the DELETE's answer
     * (undefined when the contract has no DELETE for it). Once gone it is no longer `removeAll`'s.
     */
    async remove(entry: Created, send: (r: FuzzRequest) => Promise<Observed>): Promise<Observed | undefined> {
      const request = deleteRequest(entry);
      if (!request) return undefined;
      const answer = await send(request);
      if (gone(answer) && created.includes(entry)) created.splice(created.indexOf(entry), 1);
      return answer;
    },

    /**
     * Deletes what can be deleted, with the DELETE operation's own valid credential; answers what
     * stayed. A 429 is waited out (`waitOut` gets its Retry-After) and the DELETE sent again, twice at most.
     */
    async removeAll(send: (r: FuzzRequest) => Promise<Observed>, waitOut: (seconds: number) => Promise<void>): Promise<CleanupReport> {
      let removed = 0;
      const left = new Map<string, { count: number; why: string }>();
      const stay = (collection: string, why: string) => {
        const entry = left.get(collection) ?? { count: 0, why };
        entry.count++;
        left.set(collection, entry);
      };
      for (const entry of created) {
        const { collection } = entry;
        const request = deleteRequest(entry);
        if (!request) {
          stay(collection, `the contract has no DELETE ${collection}/{id}`);
          continue;
        }
        let answer = await send(request);
        for (let retry = 0; answer.status === 429 && retry < 2; retry++) {
          await waitOut(Math.min(60, Math.max(1, Number(answer.headers['retry-after']) || 1)));
          answer = await send(request);
        }
        if (answer.status >= 200 && answer.status < 300) removed++;
        else if (!gone(answer)) stay(collection, `DELETE answered ${answer.status}`);
      }
      return { removed, left: [...left].map(([collection, entry]) => ({ collection, ...entry })) };
    },
  };
}

export type Cleanup = ReturnType<typeof createCleanup>;

/** The report's lines about it; none when the run created nothing. */
export function cleanupLines(report: CleanupReport): string[] {
  if (report.removed === 0 && report.left.length === 0) return [];
  const lines = [`cleanup: removed ${report.removed} resources the run created`];
  for (const { collection, count, why } of report.left) lines.push(`  left ${count} created by POST ${collection} on the server (${why})`);
  return lines;
}
