import type { ScenarioContext, ScenarioPart } from './scenario.js';

/** What both parts of the coder scenario work on: where the gateway is, with whose key. */
export interface CoderFixture {
  ctx: ScenarioContext;
  /** what each part's setup made (ids of sessions, responses, tool servers...), by name */
  made: Record<string, string>;
}

export type CoderScenarioPart = ScenarioPart<CoderFixture>;
