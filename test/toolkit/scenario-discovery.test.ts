/**
 * A service's scenario is the module of scripts/lib/scenarios/ named after it (its default export),
 * so a scaffolded service is found without editing a table; a module named after a service that
 * exports no scenario is an error rather than a service silently left without one.
 */
import { describe, expect, test } from 'vitest';
import { scenarioFor } from '../../scripts/lib/scenarios/index.js';
import { seoScenario } from '../../scripts/lib/scenarios/seo.js';
import { stubControlsScenario } from '../../scripts/lib/scenarios/stub-controls.js';

describe('scenarioFor', () => {
  test('finds a service scenario by its file name', async () => {
    expect(await scenarioFor('seo')).toBe(seoScenario);
    expect(await scenarioFor('stub-controls')).toBe(stubControlsScenario);
  });

  test.each(['inventory', 'index', 'scenario', 'examples', '../scenarios/seo'])('%s has none', async (slug) => {
    expect(await scenarioFor(slug)).toBeUndefined();
  });

  test('a module named after a service without a scenario as its default export is refused', async () => {
    await expect(scenarioFor('mail-fixture')).rejects.toThrow(/mail-fixture\.ts is named after the mail-fixture service but its default export is not a scenario/);
  });
});
