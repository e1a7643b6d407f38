/** One HTTP service as a fuzz target: its request generator, the sender and the oracle, tied together. */
import type { StubService } from '../../../server-stubs/lib/service.js';
import { buildServiceModel } from './contract-model.js';
import { createLiveIds } from './live-ids.js';
import { createHttpOracle } from './oracle.js';
import { httpRequestArbitrary } from './requests.js';
import type { FuzzTarget } from './runner.js';
import { curlLine, describeObserved, describeRequest, type FuzzRequest, type Sender } from './wire.js';

export function httpServiceTarget(slug: string, services: ReadonlyArray<StubService>, sender: Sender): FuzzTarget<FuzzRequest> {
  const liveIds = createLiveIds();
  const model = buildServiceModel(slug, services, (name, schema) => liveIds.arbitraryFor(name, schema));
  const oracle = createHttpOracle(model);
  return {
    arbitrary: httpRequestArbitrary(model, liveIds),
    caseOf: (r) => r.case,
    async execute(generated) {
      const r = liveIds.substitute(generated);
      const observed = await sender.send(model.basePath, r);
      liveIds.harvest(model.match(r.path)?.template, observed);
      return { violations: oracle(r, observed), request: `${describeRequest(model.basePath, r)}\n        replay: ${curlLine(model.basePath, r)}`, response: describeObserved(observed) };
    },
  };
}
