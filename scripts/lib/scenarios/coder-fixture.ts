import { type ScenarioContext, type ScenarioPart, transportOf } from './scenario.js';
import type { operations } from '../../../generated/coder/types.gen.js';

/** What both parts of the coder scenario work on: where the gateway is, with whose key. */
export interface CoderFixture {
  ctx: ScenarioContext;
  /** what each part's setup made (ids of sessions, responses, tool servers...), by name */
  made: Record<string, string>;
}

export type CoderScenarioPart = ScenarioPart<CoderFixture, operations>;

/** The key of another owner (CODER_OTHER_KEY on a server seeded differently). */
export const otherKey = () => process.env.CODER_OTHER_KEY ?? 'coder_test_key_2';

/** A call as the fixture's caller; `headers` override its credential (another owner, `x-api-key`). */
export async function send(fixture: CoderFixture, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  // A Headers object, so an override replaces the context's header whatever the case of its name.
  const headers = new Headers(fixture.ctx.headers);
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  const response = await transportOf(fixture.ctx)(`${fixture.ctx.baseUrl}${path}`, { method, headers, ...(options.body !== undefined && { body: JSON.stringify(options.body) }) });
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return { status: response.status, stream: text };
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}
