/** The behaviour scenario of each service that has one (see scenario.ts). A new service adds its own here. */
import { blogScenario } from './blog.js';
import { coderScenario } from './coder.js';
import { devScenario } from './dev.js';
import { mailScenario } from './mail.js';
import { reachScenario } from './reach.js';
import { seoScenario } from './seo.js';
import { socialScenario } from './social.js';
import { stubControlsScenario } from './stub-controls.js';
import type { ServiceScenario } from './scenario.js';

/**
 * Each scenario's fixture type is its own: runScenario hands what its setup made only to its own
 * calls, so the table can forget the type (TypeScript has no "some F").
 */
const opaque = <F>(scenario: ServiceScenario<F>) => scenario as unknown as ServiceScenario<unknown>;

export const scenarios: Readonly<Record<string, ServiceScenario<unknown>>> = {
  seo: opaque(seoScenario),
  coder: opaque(coderScenario),
  dev: opaque(devScenario),
  blog: opaque(blogScenario),
  social: opaque(socialScenario),
  reach: opaque(reachScenario),
  mail: opaque(mailScenario),
  'stub-controls': opaque(stubControlsScenario),
};

/** `advance` for a server with the development controls at `origin`: true when it moved the clock. */
export function stubClockAdvance(origin: string): (seconds: number) => Promise<boolean> {
  return async (seconds) => {
    const response = await fetch(`${origin}/_stub/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: seconds }) }).catch(() => undefined);
    await response?.body?.cancel();
    return response?.status === 200;
  };
}

export { runScenario, ScenarioSetupError, type ScenarioContext, type ScenarioOutcome, type ServiceScenario } from './scenario.js';
