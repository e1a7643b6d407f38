/**
 * The coder scenario, in two parts kept by the code they exercise: the gateway's (sessions,
 * messages, agent stream, health) and the platform's (OpenAI-style routes, models, agents, tool
 * servers), on one fixture (coder-fixture.ts).
 */
import { composeScenario } from './scenario.js';
import type { operations } from '../../../generated/coder/types.gen.js';
import type { CoderFixture } from './coder-fixture.js';
import { gatewayPart } from './coder-gateway.js';
import { platformPart } from './coder-platform.js';

export const coderScenario = composeScenario<CoderFixture, operations>(async (ctx) => ({ ctx, made: {} }), [gatewayPart, platformPart]);

/** The service's scenario, found by its file name (index.ts). */
export default coderScenario;
