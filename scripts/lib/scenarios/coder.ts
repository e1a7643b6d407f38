/**
 * The coder scenario, in two parts kept by the code they exercise: the gateway's (sessions,
 * messages, agent stream, health) and the platform's (OpenAI-style routes, models, agents, tool
 * servers). Both work on the same fixture: where the gateway is, with whose key.
 */
import type { ScenarioContext, ServiceScenario } from './scenario.js';
import { gatewayPart } from './coder-gateway.js';
import { platformPart } from './coder-platform.js';

export interface CoderFixture {
  ctx: ScenarioContext;
  /** what each part's setup made (ids of sessions, responses, tool servers...), by name */
  made: Record<string, string>;
}

/** One part of the coder scenario: its own setup, calls, expectations and refusals. */
export interface CoderScenarioPart extends Pick<ServiceScenario<CoderFixture>, 'calls' | 'expectations' | 'refusals' | 'underSwitch'> {
  setup?(fixture: CoderFixture): Promise<void>;
}

const parts = [gatewayPart, platformPart];

export const coderScenario: ServiceScenario<CoderFixture> = {
  async setup(ctx) {
    const fixture: CoderFixture = { ctx, made: {} };
    for (const part of parts) await part.setup?.(fixture);
    return fixture;
  },
  calls: Object.assign({}, ...parts.map((p) => p.calls)),
  expectations: Object.assign({}, ...parts.map((p) => p.expectations)),
  refusals: parts.flatMap((p) => p.refusals ?? []),
  underSwitch: parts.flatMap((p) => p.underSwitch ?? []),
};
