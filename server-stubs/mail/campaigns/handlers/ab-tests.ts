import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import type { MailPrincipal } from '../../auth.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import { requireFeature } from '../../identity/plans.js';
import type { AbTestRecord } from '../ab-tests-store.js';
import type { CampaignRuns } from '../campaign-runs.js';
import { invalidRequest } from '../../../lib/failures.js';

type AbTest = components['schemas']['AbTest'];

function shown(t: AbTestRecord, runs: CampaignRuns): AbTest {
  return {
    id: t.id,
    campaign_id: t.campaignId,
    status: t.status,
    variants: t.variants.map((v) => ({ id: v.id, name: v.name, subject: v.subject, html: v.html, ...runs.variantResults(t, v) })),
    test_size_percent: t.testSizePercent,
    winner_criteria: t.winnerCriteria,
    duration_hours: t.durationHours,
    winner_variant_id: t.winnerVariantId,
    winner_selected_at: iso(t.winnerSelectedAt),
    created_at: iso(t.createdAt)!,
  };
}

/** A/B tests of campaigns (Pro plan): create on a draft, results so far, a winner picked by hand. */
export function abTestHandlers({ abTests, campaigns, campaignRuns, identity }: MailDeps) {
  const gate = (principal: MailPrincipal) => requireFeature(identity.user(principal.userId)?.plan ?? 'free', 'ab_tests');
  const find = (userId: string, id: string, fail: Fail<404>) => abTests.get(userId, id) ?? fail(404, undefined, 'A/B test not found');

  return mailHandlers({
    listAbTests: ({ principal, query }) => {
      gate(principal);
      return { status: 200, body: { success: true, ...pageOf(abTests.of(principal.userId).map((t) => shown(t, campaignRuns)), query.page, query.limit) } };
    },

    createAbTest: ({ principal, body, fail }) => {
      gate(principal);
      const campaign = campaigns.get(principal.userId, body.campaign_id) ?? fail(404, undefined, 'Campaign not found');
      const names = body.variants.map((v) => v.name);
      if (new Set(names).size !== names.length) invalidRequest({ fieldErrors: { variants: ['Variant names must differ'] } });
      if (campaign.status !== 'draft') fail(409, undefined, 'Only a draft campaign can be tested');
      if (abTests.ofCampaign(campaign.id)) fail(409, undefined, 'Campaign already has an A/B test');
      const record = abTests.create(principal.userId, {
        campaignId: campaign.id,
        variants: body.variants.map((v) => ({ name: v.name, subject: v.subject ?? null, html: v.html ?? null })),
        testSizePercent: body.test_size_percent,
        winnerCriteria: body.winner_criteria,
        durationHours: body.duration_hours,
      });
      return { status: 201, body: { success: true, data: shown(record, campaignRuns) } };
    },

    selectAbTestWinner: async ({ principal, params, body, fail }) => {
      gate(principal);
      const test = find(principal.userId, params.id, fail);
      if (!test.variants.some((v) => v.id === body.variant_id)) fail(404, undefined, 'Variant not found');
      if (test.status === 'completed') fail(409, undefined, 'Winner already selected');
      if (test.status !== 'running') fail(409, undefined, 'A/B test has not started');
      await campaignRuns.finishTest(test, body.variant_id);
      return { status: 200, body: { success: true, data: shown(test, campaignRuns) } };
    },
  });
}
