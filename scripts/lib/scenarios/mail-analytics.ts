/**
 * The analytics part of the mail scenario: the report (whose figures depend on what else the
 * target sent, so only its shape and range are checked), and custom events and purchases tracked
 * for a contact made for the run.
 */
import assert from 'node:assert/strict';
import { fresh, notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const purchase = (f: MailFixture, orderId: string) => ({ email: f.made.trackedEmail!, order_id: orderId, amount: 12.5, currency: 'EUR' });

export const analyticsPart: MailScenarioPart = {
  async setup(f) {
    f.made.trackedEmail = fresh('tracked');
    f.made.trackedContact = required('create the tracked contact', await f.api.POST('/v1/contacts', { body: { email: f.made.trackedEmail } }), 201).data.id;
  },

  calls: {
    getAnalytics: async ({ api }) => outcomeOf(await api.GET('/v1/analytics', { params: { query: { from: '2026-01-01', to: '2026-01-31', granularity: 'week' } } })),
    trackEvent: async ({ api, made }) => outcomeOf(await api.POST('/v1/track/event', { body: { contact_id: made.trackedContact!, event: 'signed_up', properties: { plan: 'trial' } } })),
    trackPurchase: async (f) => outcomeOf(await f.api.POST('/v1/track/purchase', { body: purchase(f, fresh('order')) })),
  },

  expectations: {
    getAnalytics: (b) => assert.deepEqual({ from: b.data.from, to: b.data.to, weeks: b.data.series.length }, { from: '2026-01-01', to: '2026-01-31', weeks: 5 }),
    trackEvent: (b, f) => assert.deepEqual({ contact: b.data.contact_id, event: b.data.event }, { contact: f.made.trackedContact, event: 'signed_up' }),
    trackPurchase: (b, f) => assert.deepEqual({ contact: b.data.contact_id, amount: b.data.amount, items: b.data.items }, { contact: f.made.trackedContact, amount: 12.5, items: [] }),
  },

  refusals: [
    { id: 'getAnalytics', status: 400, why: 'from after to', call: async (f) => outcomeOf(await f.api.GET('/v1/analytics', { params: { query: { from: '2026-02-01', to: '2026-01-01' } } })) },
    { id: 'getAnalytics', status: 404, why: 'a campaign the user does not have', call: async (f) => outcomeOf(await f.api.GET('/v1/analytics', { params: { query: { campaign_id: unknownId } } })) },
    { id: 'getAnalytics', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/analytics')) },
    { id: 'trackEvent', status: 404, why: 'no contact with that address', call: async (f) => outcomeOf(await f.api.POST('/v1/track/event', { body: { email: fresh('nobody'), event: 'x' } })) },
    { id: 'trackEvent', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/track/event', { body: { contact_id: unknownId, event: 'x' } })) },
    { id: 'trackEvent', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/track/event') },
    { id: 'trackPurchase', status: 404, why: 'a campaign the user does not have', call: async (f) => outcomeOf(await f.api.POST('/v1/track/purchase', { body: { ...purchase(f, fresh('order')), campaign_id: unknownId } })) },
    {
      id: 'trackPurchase',
      status: 409,
      why: 'an order id tracked before',
      call: async (f) => {
        const body = purchase(f, fresh('order'));
        required('track the order once', await f.api.POST('/v1/track/purchase', { body }), 201);
        return outcomeOf(await f.api.POST('/v1/track/purchase', { body }));
      },
    },
    { id: 'trackPurchase', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/track/purchase', { body: purchase(f, fresh('order')) })) },
    { id: 'trackPurchase', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/track/purchase') },
  ],
};
