/** One HTTP service as a fuzz target: its request generator, the sender and the oracle, tied together. */
import type { Contract } from '../../../server-stubs/lib/contract.js';
import { buildServiceModel, type CredentialSource } from './contract-model.js';
import { createCleanup, type Cleanup } from './cleanup.js';
import { createLiveIds } from './live-ids.js';
import { createOversizedStore } from './oversized-stored.js';
import { createHttpOracle } from './oracle.js';
import { httpRequestArbitrary } from './requests.js';
import type { FuzzTarget } from './runner.js';
import { curlLine, describeObserved, describeRequest, type FuzzRequest, type Sender } from './wire.js';

export interface HttpTargetOptions {
  /**
   * The path put before each request's path by this target (default: the contract's base path, for
   * a sender aimed at a server's root). A sender whose base URL already ends in the service's path
   * takes `''`.
   */
  basePath?: string;
  /** what replay lines start with (default: `npm start`'s http://localhost:4000) */
  origin?: string;
  /** the service's contract, when it is not the repository's bundle of the slug */
  contract?: Contract;
  /**
   * Delete a resource created with an oversized body as soon as an answer has served it back
   * (oversized-stored.ts), rather than letting every later answer carry it. Off by default: it
   * sends DELETEs during the run, which a run against a stateless server must not.
   */
  removeOversized?: boolean;
}

export interface HttpServiceTarget extends FuzzTarget<FuzzRequest> {
  /** what the run's valid requests created, to remove at its end */
  cleanup: Cleanup;
  /** how many answers were 429: a shared server's rate window the run spent */
  rateLimited(): number;
}

export function httpServiceTarget(slug: string, services: ReadonlyArray<CredentialSource>, sender: Sender, options: HttpTargetOptions = {}): HttpServiceTarget {
  const liveIds = createLiveIds();
  let rateLimited = 0;
  const model = buildServiceModel(slug, services, (name, schema) => liveIds.arbitraryFor(name, schema), options.contract);
  const oracle = createHttpOracle(model);
  const cleanup = createCleanup(model);
  const oversized = options.removeOversized ? createOversizedStore(cleanup) : undefined;
  const basePath = options.basePath ?? model.basePath;

  /** The request with the credential of another tenant in place of the valid one, when the stub names tenants. */
  function asOtherTenant(r: FuzzRequest): FuzzRequest | undefined {
    const { valid, otherTenant } = model.operations.find((o) => o.label === r.aim)?.credentials ?? {};
    if (!valid || !otherTenant) return undefined;
    const headers = Object.fromEntries(Object.entries(r.headers).filter(([k]) => !(k.toLowerCase() in valid)));
    return { ...r, case: 'cross-tenant', headers: { ...headers, ...otherTenant } };
  }
  // Built when the fuzzer first asks: a contract run without fuzz requests (`--runs 0`) uses the
  // target only for its cleanup, and the generators are most of what it costs to make.
  let arbitrary: ReturnType<typeof httpRequestArbitrary> | undefined;
  return {
    cleanup,
    rateLimited: () => rateLimited,
    get arbitrary() {
      return (arbitrary ??= httpRequestArbitrary(model, liveIds));
    },
    caseOf: (r) => r.case,
    async execute(generated) {
      const { request: r, owned } = liveIds.substitute(generated);
      const describe = (q: FuzzRequest) => `${describeRequest(basePath, q)}\n        replay: ${curlLine(basePath, q, options.origin)}`;
      // Before the owner's own call (which may delete the resource), another tenant tries the same ids.
      const intruder = owned && r.expect === 'accept' ? asOtherTenant(r) : undefined;
      if (intruder) {
        const seen = await sender.send(basePath, intruder);
        if (seen.status >= 200 && seen.status < 300) {
          return { violations: [{ kind: 'cross-tenant access', detail: `${r.method} ${model.match(r.path)?.template ?? r.path} answered ${seen.status} to another tenant` }], request: describe(intruder), response: describeObserved(seen) };
        }
      }
      const observed = await sender.send(basePath, r);
      const template = model.match(r.path)?.template;
      liveIds.harvest(template, observed, r.method === 'POST' && r.expect === 'accept');
      const created = cleanup.record(template, r.method, observed);
      if (observed.status === 429) rateLimited++;
      const violations = oracle(r, observed);
      for (const removed of (await oversized?.settle(r, created, observed, (q) => sender.send(basePath, q))) ?? []) liveIds.forget(removed.id);
      // Only a violation's request and answer are printed: a passing run's thousand are not written out.
      return violations.length ? { violations, request: describe(r), response: describeObserved(observed) } : { violations, request: '', response: '' };
    },
  };
}
