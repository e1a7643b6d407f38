import type { CoderScenarioPart } from './coder.js';

/** Sessions, messages, the agent stream and health. */
export const gatewayPart: CoderScenarioPart = { calls: {}, expectations: {}, refusals: [] };
