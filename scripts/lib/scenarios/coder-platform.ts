import type { CoderScenarioPart } from './coder.js';

/** The OpenAI-style routes, models, agents and tool servers. */
export const platformPart: CoderScenarioPart = { calls: {}, expectations: {}, refusals: [] };
