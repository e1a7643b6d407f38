/**
 * The webhooks part of the mail scenario: Form B endpoints (`/v1/webhooks`) and their attempt
 * log, Form A dashboard endpoints (`/api/webhooks`), with the refusals their handlers decide
 * (unknown ids, addresses the SSRF guard refuses, scopes, empty updates, bodies that are not JSON).
 * Endpoints point at a documentation name (192.0.2.10 offline, let through by the guard, so a
 * delivery fails quietly); no expectation depends on a delivery. The kept Form B endpoint is
 * paused and the others take few events, so a long-running stub does not pile up retries.
 */
import assert from 'node:assert/strict';
import { notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const hookUrl = (label: string) => `https://hooks.example.com/scenario/${label}/${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const trackingEvents = ['email.opened', 'email.clicked'] as const;
const privateUrl = 'https://10.20.30.40/hook';

async function newEndpoint(f: MailFixture, label: string): Promise<string> {
  return required(`create the webhook "${label}"`, await f.api.POST('/v1/webhooks', { body: { url: hookUrl(label), events: [...trackingEvents], secret: 'scenario-signing-secret' } }), 201).data.id;
}

async function newDashboardEndpoint(f: MailFixture, label: string): Promise<string> {
  return required(`create the dashboard webhook "${label}"`, await f.dashboard.POST('/api/webhooks', { body: { url: hookUrl(label), events: [...trackingEvents], secret: 'scenario-signing-secret' } }), 201).data.id;
}

const sessionHeaders = (f: MailFixture) => ({ cookie: `session=${f.session}` });
const byId = (id: string) => ({ params: { path: { id } } });

export const webhooksPart: MailScenarioPart = {
  async setup(f) {
    f.made.webhook = await newEndpoint(f, 'kept');
    f.made.dashboardWebhook = await newDashboardEndpoint(f, 'kept');
  },

  calls: {
    listWebhooks: async ({ api }) => outcomeOf(await api.GET('/v1/webhooks')),
    createWebhook: async ({ api }) => outcomeOf(await api.POST('/v1/webhooks', { body: { url: hookUrl('created'), events: ['email.complained'], secret: 'scenario-created-secret' } })),
    updateWebhook: async (f) => outcomeOf(await f.api.PATCH('/v1/webhooks/{id}', { ...byId(f.made.webhook!), body: { events: [...trackingEvents], secret: 'scenario-rotated-secret', enabled: false } })),
    deleteWebhook: async (f) => outcomeOf(await f.api.DELETE('/v1/webhooks/{id}', byId(await newEndpoint(f, 'to-delete')))),
    listWebhookDeliveries: async (f) => outcomeOf(await f.api.GET('/v1/webhooks/{id}/events', byId(f.made.webhook!))),
    listDashboardWebhooks: async ({ dashboard }) => outcomeOf(await dashboard.GET('/api/webhooks')),
    createDashboardWebhook: async ({ dashboard }) => outcomeOf(await dashboard.POST('/api/webhooks', { body: { url: hookUrl('dashboard-created'), events: ['email.opened'], secret: 'short' } })),
    updateDashboardWebhook: async (f) => outcomeOf(await f.dashboard.PATCH('/api/webhooks/{id}', { ...byId(f.made.dashboardWebhook!), body: { events: [...trackingEvents], secret: null } })),
    deleteDashboardWebhook: async (f) => outcomeOf(await f.dashboard.DELETE('/api/webhooks/{id}', byId(await newDashboardEndpoint(f, 'to-delete')))),
    enableDashboardWebhook: async (f) => outcomeOf(await f.dashboard.POST('/api/webhooks/{id}/enable', byId(f.made.dashboardWebhook!))),
  },

  expectations: {
    listWebhooks: (b, f) => assert.ok(b.data.some((e: { id: string }) => e.id === f.made.webhook), 'the list holds the endpoint created'),
    createWebhook: (b) => assert.deepEqual({ events: b.data.events, enabled: b.data.enabled, secret: b.data.secret }, { events: ['email.complained'], enabled: true, secret: 'scenario-created-secret' }),
    updateWebhook: (b, f) => assert.deepEqual({ id: b.data.id, secret: b.data.secret, enabled: b.data.enabled }, { id: f.made.webhook, secret: 'scenario-rotated-secret', enabled: false }),
    deleteWebhook: (b) => assert.deepEqual(b, { success: true }),
    listWebhookDeliveries: (b) => assert.ok(Array.isArray(b.data) && b.data.length <= 100, 'at most 100 attempts'),
    listDashboardWebhooks: (b, f) => assert.ok(b.data.some((e: { id: string }) => e.id === f.made.dashboardWebhook), 'the list holds the dashboard endpoint created'),
    createDashboardWebhook: (b) =>
      assert.deepEqual({ events: b.data.events, enabled: b.data.enabled, failures: b.data.consecutive_failures }, { events: ['email.opened'], enabled: true, failures: 0 }),
    updateDashboardWebhook: (b, f) => assert.deepEqual({ id: b.data.id, secret: b.data.secret }, { id: f.made.dashboardWebhook, secret: null }),
    deleteDashboardWebhook: (b) => assert.deepEqual(b, { success: true }),
    enableDashboardWebhook: (b, f) => assert.deepEqual({ id: b.data.id, enabled: b.data.enabled, failures: b.data.consecutive_failures }, { id: f.made.dashboardWebhook, enabled: true, failures: 0 }),
  },

  refusals: [
    { id: 'listWebhooks', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/webhooks')) },
    { id: 'createWebhook', status: 400, why: 'a URL on a private address', call: async (f) => outcomeOf(await f.api.POST('/v1/webhooks', { body: { url: privateUrl, events: ['email.opened'], secret: 's' } })) },
    { id: 'createWebhook', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/webhooks', { body: { url: hookUrl('scoped'), events: ['email.opened'], secret: 's' } })) },
    { id: 'createWebhook', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/webhooks') },
    { id: 'updateWebhook', status: 404, why: 'no webhook with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/webhooks/{id}', { ...byId(unknownId), body: { enabled: true } })) },
    { id: 'updateWebhook', status: 400, why: 'a URL on a private address', call: async (f) => outcomeOf(await f.api.PATCH('/v1/webhooks/{id}', { ...byId(f.made.webhook!), body: { url: privateUrl } })) },
    { id: 'updateWebhook', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/webhooks/{id}', { ...byId(unknownId), body: { enabled: true } })) },
    { id: 'updateWebhook', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/webhooks/${unknownId}`) },
    { id: 'deleteWebhook', status: 404, why: 'no webhook with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/webhooks/{id}', byId(unknownId))) },
    { id: 'deleteWebhook', status: 400, why: 'a malformed id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/webhooks/{id}', byId('not-a-uuid'))) },
    { id: 'deleteWebhook', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/webhooks/{id}', byId(unknownId))) },
    { id: 'listWebhookDeliveries', status: 404, why: 'no webhook with that id', call: async (f) => outcomeOf(await f.api.GET('/v1/webhooks/{id}/events', byId(unknownId))) },
    { id: 'listWebhookDeliveries', status: 400, why: 'a malformed id', call: async (f) => outcomeOf(await f.api.GET('/v1/webhooks/{id}/events', byId('not-a-uuid'))) },
    { id: 'listWebhookDeliveries', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/webhooks/{id}/events', byId(unknownId))) },
    {
      id: 'createDashboardWebhook',
      status: 400,
      why: 'a URL on a private address',
      call: async (f) => outcomeOf(await f.dashboard.POST('/api/webhooks', { body: { url: privateUrl, events: ['email.opened'] } })),
    },
    { id: 'createDashboardWebhook', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/api/webhooks', sessionHeaders(f)) },
    { id: 'updateDashboardWebhook', status: 404, why: 'no dashboard webhook with that id', call: async (f) => outcomeOf(await f.dashboard.PATCH('/api/webhooks/{id}', { ...byId(unknownId), body: { secret: null } })) },
    { id: 'updateDashboardWebhook', status: 400, why: 'a URL on a private address', call: async (f) => outcomeOf(await f.dashboard.PATCH('/api/webhooks/{id}', { ...byId(f.made.dashboardWebhook!), body: { url: privateUrl } })) },
    { id: 'updateDashboardWebhook', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/api/webhooks/${unknownId}`, sessionHeaders(f)) },
    { id: 'deleteDashboardWebhook', status: 404, why: 'no dashboard webhook with that id', call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/webhooks/{id}', byId(unknownId))) },
    { id: 'deleteDashboardWebhook', status: 400, why: 'a malformed id', call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/webhooks/{id}', byId('not-a-uuid'))) },
    { id: 'enableDashboardWebhook', status: 404, why: 'no dashboard webhook with that id', call: async (f) => outcomeOf(await f.dashboard.POST('/api/webhooks/{id}/enable', byId(unknownId))) },
    { id: 'enableDashboardWebhook', status: 400, why: 'a malformed id', call: async (f) => outcomeOf(await f.dashboard.POST('/api/webhooks/{id}/enable', byId('not-a-uuid'))) },
  ],
};
