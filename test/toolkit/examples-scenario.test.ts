/**
 * A service without a scenario of its own gets the example scenario of its contract: every operation
 * called once with its example request, the seeded credentials where the service has some and a
 * placeholder in the declared scheme elsewhere. Checked on real stubs, so its outcomes are the
 * answers a server gave (a stateful stub answers an example id it never made with 404, which the
 * conformance test then refuses as no verified success).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defaultCredentialHeaders, seededCredentials } from '../../scripts/lib/credentials.js';
import { placeholderCredentials, seededOrPlaceholder } from '../../scripts/lib/scenarios/examples.js';
import { runScenario, scenarioOrExamples, stubClockAdvance } from '../../scripts/lib/scenarios/index.js';
import { seoScenario } from '../../scripts/lib/scenarios/seo.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';

let stubs: PlatformServer;
beforeAll(async () => {
  stubs = await startPlatformServer(0, '127.0.0.1');
}, 60_000);
afterAll(() => stubs?.close());

/** The outcomes of the example scenario of `slug`'s contract, run as if the service had no scenario, on its stub. */
async function examplesOn(slug: string, credentialsOf = (seeded: ReturnType<typeof seededCredentials>) => seededOrPlaceholder(seeded)) {
  const { document, basePath } = loadContract(slug);
  const service = stubs.services.find((s) => s.slug === slug);
  const { regime, scenario } = await scenarioOrExamples('no-such-scenario', document, credentialsOf(seededCredentials(service, document)));
  const origin = `http://127.0.0.1:${stubs.port}`;
  const outcomes = await runScenario(scenario, { baseUrl: `${origin}${basePath}`, headers: {}, advance: stubClockAdvance(origin) });
  return { regime, statuses: Object.fromEntries(outcomes.map((o) => [o.id, o.status])), outcomes };
}

describe('the example scenario', () => {
  test('a service with a scenario of its own keeps it, on the strict regime', async () => {
    const { document } = loadContract('seo');
    expect(await scenarioOrExamples('seo', document, () => ({}))).toEqual({ regime: 'scenario', scenario: seoScenario });
  });

  test('without one, every operation is called once with its example request and the seeded credentials', async () => {
    const { regime, statuses, outcomes } = await examplesOn('seo');
    expect(regime).toBe('examples');
    expect(outcomes.map((o) => o.id)).toEqual(Object.keys(statuses));
    // Listing and creating need nothing made first; the example ids name projects this stub never made.
    expect(statuses).toMatchObject({ listProjects: 200, createProject: 201, getProject: 404, deleteProject: 404, getCrawlStatus: 404 });
    expect(Object.keys(statuses)).toHaveLength(16);
    const created = outcomes.find((o) => o.id === 'createProject')!.body as { project: { name: string } };
    expect(created.project.name).toBeTypeOf('string');
  });

  test('operations without security are called as they are', async () => {
    const { statuses } = await examplesOn('stub-controls');
    expect(statuses).toMatchObject({ getStubClock: 200, moveStubClock: 200, resetStubs: 200 });
  });

  test('where the service seeds no credential, a placeholder in the declared scheme is sent', async () => {
    // The seo stub checks its keys, so a placeholder gets its declared 401: the scheme's header was sent.
    const { statuses } = await examplesOn('seo', () => seededOrPlaceholder(() => ({})));
    expect(new Set(Object.values(statuses))).toEqual(new Set([401]));
  });

  test('a placeholder has the shape of its scheme', () => {
    expect(placeholderCredentials({ type: 'http', scheme: 'bearer' })).toEqual({ authorization: 'Bearer placeholder-token' });
    expect(placeholderCredentials({ type: 'http', scheme: 'Basic' }).authorization).toMatch(/^Basic [A-Za-z0-9+/]+=*$/);
    expect(placeholderCredentials({ type: 'apiKey', in: 'header', name: 'X-Api-Key' })).toEqual({ 'X-Api-Key': 'placeholder-key' });
    expect(placeholderCredentials({ type: 'apiKey', in: 'cookie', name: 'session' })).toEqual({ cookie: 'session=placeholder' });
    expect(placeholderCredentials({ type: 'mutualTLS' })).toEqual({});
  });
});
