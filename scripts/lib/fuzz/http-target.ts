/** One HTTP service as a fuzz target: its request generator, the sender and the oracle, tied together. */
import { buildServiceModel, type CredentialSource } from './contract-model.js';
import { createLiveIds } from './live-ids.js';
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
}

export function httpServiceTarget(slug: string, services: ReadonlyArray<CredentialSource>, sender: Sender, options: HttpTargetOptions = {}): FuzzTarget<FuzzRequest> {
  const liveIds = createLiveIds();
  const model = buildServiceModel(slug, services, (name, schema) => liveIds.arbitraryFor(name, schema));
  const oracle = createHttpOracle(model);
  const basePath = options.basePath ?? model.basePath;
  return {
    arbitrary: httpRequestArbitrary(model, liveIds),
    caseOf: (r) => r.case,
    async execute(generated) {
      const r = liveIds.substitute(generated);
      const observed = await sender.send(basePath, r);
      liveIds.harvest(model.match(r.path)?.template, observed);
      return { violations: oracle(r, observed), request: `${describeRequest(basePath, r)}\n        replay: ${curlLine(basePath, r, options.origin)}`, response: describeObserved(observed) };
    },
  };
}
