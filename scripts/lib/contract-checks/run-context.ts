/**
 * What every check of one `npm run contract` run shares: the contract it holds the target to, the
 * credentials it sends, the senders, and what the run created on the target (removed at its end).
 */
import type { OpenAPI3 } from 'openapi-typescript';
import type { Contract, OperationInfo } from '../../../server-stubs/lib/contract.js';
import { listOperations } from '../../../server-stubs/lib/openapi/document.js';
import { contractChecker, type ContractChecker } from '../contract-checker.js';
import { credentialHeadersOf } from '../credentials.js';
import { cleanupLines } from '../fuzz/cleanup.js';
import { httpServiceTarget, type HttpServiceTarget } from '../fuzz/http-target.js';
import { createSender, type FuzzRequest, type Observed, type Sender } from '../fuzz/wire.js';
import { stubClockAdvance } from '../scenarios/index.js';
import type { CredentialPlan } from './credential-plan.js';

export interface ContractRunContext {
  slug: string;
  /** where the service is served, base path included, without a trailing slash */
  baseUrl: string;
  /** the target is a stateless mock: it keeps nothing, so nothing is noted or removed */
  stateless: boolean;
  contract: Contract;
  document: OpenAPI3;
  checker: ContractChecker;
  operations: OperationInfo[];
  credentials: CredentialPlan;
  /** a path no operation of the contract matches */
  unknownPath: string;
  /** schemas that could not be compiled: named in the report, the server is not to blame for them */
  unchecked: Set<string>;
  /** one request at a time, event streams read for a while then cut (examples, negative cases) */
  sender: Sender;
  fuzzSender: Sender;
  /** The fuzz target, made on first use; its cleanup also holds what the scenario and the examples created. */
  fuzzTarget(): HttpServiceTarget;
  /** Notes what a request of the run created, to remove it at the end (on a stateful target only). */
  noteCreated(method: string, path: string, observed: Observed, headers: Record<string, string>): void;
  /** The request with the given headers added (a header of its own wins). */
  withExtra(r: FuzzRequest): FuzzRequest;
  /**
   * Removes what the run created (a stateful server may be a teammate's) and says what stays; the
   * clock is moved with the development controls when the target has them, else the run waits.
   */
  removeCreated(): Promise<string[]>;
  close(): void;
}

export interface RunTarget {
  slug: string;
  base: URL;
  /** the contract of the bundle's schema view */
  contract: Contract;
  credentials: CredentialPlan;
  stateless: boolean;
  /** how long an event stream is read before it is cut */
  streamMs: number;
  /** the fuzzer's concurrent requests */
  fuzzConcurrency: number;
}

export function openRun(target: RunTarget): ContractRunContext {
  const { slug, credentials, stateless, contract } = target;
  const { document } = contract;
  const baseUrl = `${target.base.origin}${target.base.pathname.replace(/\/+$/, '')}`;
  const sender = createSender(baseUrl, { concurrency: 1, timeoutMs: 10_000, streamMs: target.streamMs });
  const fuzzSender = createSender(baseUrl, { concurrency: target.fuzzConcurrency, timeoutMs: 10_000 });
  let made: HttpServiceTarget | undefined;
  const fuzzTarget = () => (made ??= httpServiceTarget(slug, credentials.fuzzSources, fuzzSender, { basePath: '', origin: baseUrl, contract }));
  return {
    slug,
    baseUrl,
    stateless,
    contract,
    document,
    checker: contractChecker(contract),
    operations: listOperations(document),
    credentials,
    unknownPath: unknownPathOf(contract),
    unchecked: new Set<string>(),
    sender,
    fuzzSender,
    fuzzTarget,
    noteCreated(method, path, observed, headers) {
      if (stateless) return;
      const match = contract.match(method, path);
      if (match.kind === 'operation') fuzzTarget().cleanup.record(match.operation.path, method, observed, credentialHeadersOf(document, headers));
    },
    withExtra: (r) => ({ ...r, headers: { ...credentials.extraHeaders, ...r.headers } }),
    async removeCreated() {
      if (!made || stateless) return [];
      const advance = stubClockAdvance(new URL(baseUrl).origin);
      const waitOut = async (seconds: number) => {
        if (!(await advance(seconds))) await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      };
      return cleanupLines(await made.cleanup.removeAll((r) => fuzzSender.send('', r), waitOut));
    },
    close() {
      sender.close();
      fuzzSender.close();
    },
  };
}

/** A path below the base path that no operation of the contract matches. */
function unknownPathOf(contract: Contract): string {
  let unknown = '/__contract_check__/no-such-path';
  while (contract.match('GET', unknown).kind !== 'not_found') unknown += '/more';
  return unknown;
}
