import type { ServiceScenario } from './scenario.js';

/** Grounded search. */
export const devScenario: ServiceScenario<unknown> = { setup: async () => undefined, calls: {}, expectations: {} };
