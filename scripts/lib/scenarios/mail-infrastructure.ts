/**
 * The infrastructure part of the mail scenario: aliases (on a sending domain of the caller's own),
 * dedicated IPs (Max plan), inbound routes and AI subject lines, with the refusals their handlers
 * decide. Expectations never depend on DNS answers (the target may have no network): names live
 * under the reserved `.example` top-level domain and no step needs a record to be found. Each run
 * first removes what earlier runs left (domains, aliases, routes; IPs are released), so a
 * long-running stub does not accumulate them.
 */
import assert from 'node:assert/strict';
import { notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const suffix = '.scenario-infra.example';
const ipPool = 'scenario';
const hook = 'https://hooks.scenario-infra.example/inbound';

/** Unique per run, so a scenario against a long-running stub never collides with its own earlier data. */
const freshLabel = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const freshDomain = (label: string) => `${freshLabel(label)}${suffix}`;
const aliasAt = (f: MailFixture, label: string) => `${freshLabel(label)}@${f.made.infraDomain}`;

async function removeEarlierRuns(f: MailFixture) {
  const aliases = required('list aliases', await f.api.GET('/v1/aliases', { params: { query: { limit: 100 } } }), 200).data;
  for (const a of aliases.filter((x) => x.alias.endsWith(suffix))) await f.api.DELETE('/v1/aliases', { params: { query: { id: a.id } } });
  const domains = required('list sending domains', await f.api.GET('/v1/domains', { params: { query: { limit: 100 } } }), 200).data;
  for (const d of domains.filter((x) => x.domain.endsWith(suffix))) await f.api.DELETE('/v1/domains', { params: { query: { id: d.id } } });
  const routes = required('list inbound routes', await f.api.GET('/v1/inbound', { params: { query: { limit: 100 } } }), 200).data;
  for (const r of routes.filter((x) => x.domain.endsWith(suffix))) await f.api.DELETE('/v1/inbound', { params: { query: { id: r.id } } });
  const ips = required('list dedicated IPs', await f.api.GET('/v1/dedicated-ips', { params: { query: { limit: 100 } } }), 200).data;
  for (const ip of ips.filter((x) => x.pool.startsWith(ipPool) && x.status !== 'released')) await f.api.DELETE('/v1/dedicated-ips', { params: { query: { id: ip.id } } });
}

async function newAlias(f: MailFixture, label: string) {
  return required(`create the alias "${label}"`, await f.api.POST('/v1/aliases', { body: { alias: aliasAt(f, label), forward_to: ['team@example.org'] } }), 201).data;
}

async function newIp(f: MailFixture) {
  return required('request a dedicated IP', await f.api.POST('/v1/dedicated-ips', { body: { pool: ipPool } }), 201).data;
}

async function newRoute(f: MailFixture, label: string) {
  return required(`configure the inbound domain "${label}"`, await f.api.POST('/v1/inbound', { body: { domain: freshDomain(label), webhook_url: hook } }), 201).data;
}

export const infrastructurePart: MailScenarioPart = {
  async setup(f) {
    await removeEarlierRuns(f);
    const domain = required('add the aliases\' sending domain', await f.api.POST('/v1/domains', { body: { domain: freshDomain('aliases') } }), 201).data;
    f.made.infraDomain = domain.domain;
    f.made.infraDomainId = domain.id;
    f.made.alias = (await newAlias(f, 'listed')).id;
    f.made.dedicatedIp = (await newIp(f)).id;
    const route = await newRoute(f, 'listed');
    f.made.inboundRoute = route.id;
    f.made.inboundDomain = route.domain;
  },

  calls: {
    listAliases: async ({ api }) => outcomeOf(await api.GET('/v1/aliases', { params: { query: { limit: 100 } } })),
    createAlias: async (f) => outcomeOf(await f.api.POST('/v1/aliases', { body: { alias: (f.made.createdAlias = aliasAt(f, 'Created')), forward_to: ['ada@example.org', 'grace@example.org'] } })),
    updateAlias: async ({ api, made }) => outcomeOf(await api.PATCH('/v1/aliases', { params: { query: { id: made.alias! } }, body: { enabled: false } })),
    deleteAlias: async (f) => {
      const { id } = await newAlias(f, 'to-delete');
      return outcomeOf(await f.api.DELETE('/v1/aliases', { params: { query: { id } } }));
    },
    listDedicatedIps: async ({ api }) => outcomeOf(await api.GET('/v1/dedicated-ips', { params: { query: { limit: 100 } } })),
    createDedicatedIp: async ({ api }) => outcomeOf(await api.POST('/v1/dedicated-ips', { body: { pool: `${ipPool}-created`, warmup: false } })),
    updateDedicatedIp: async ({ api, made }) => outcomeOf(await api.PATCH('/v1/dedicated-ips', { params: { query: { id: made.dedicatedIp! } }, body: { pool: `${ipPool}-moved` } })),
    deleteDedicatedIp: async (f) => {
      const { id } = await newIp(f);
      return outcomeOf(await f.api.DELETE('/v1/dedicated-ips', { params: { query: { id } } }));
    },
    listInboundRoutes: async ({ api }) => outcomeOf(await api.GET('/v1/inbound', { params: { query: { limit: 100 } } })),
    createInboundRoute: async (f) =>
      outcomeOf(await f.api.POST('/v1/inbound', { body: { domain: freshDomain('created').toUpperCase(), webhook_url: hook, secret: 'scenario-signing-secret' } })),
    deleteInboundRoute: async (f) => {
      const { id } = await newRoute(f, 'to-delete');
      return outcomeOf(await f.api.DELETE('/v1/inbound', { params: { query: { id } } }));
    },
    generateSubjectLines: async ({ api }) => outcomeOf(await api.POST('/v1/ai/subject-lines', { body: { topic: 'Spring sale, 20% off all new arrivals', tone: 'friendly', count: 3 } })),
  },

  expectations: {
    listAliases: (b, f) => assert.ok(b.data.some((a: { id: string }) => a.id === f.made.alias), 'the list holds the alias created in setup'),
    createAlias: (b, f) =>
      assert.deepEqual(
        { alias: b.data.alias, domain: b.data.domain_id, enabled: b.data.enabled, to: b.data.forward_to },
        { alias: f.made.createdAlias!.toLowerCase(), domain: f.made.infraDomainId, enabled: true, to: ['ada@example.org', 'grace@example.org'] },
      ),
    updateAlias: (b, f) => assert.deepEqual({ id: b.data.id, enabled: b.data.enabled }, { id: f.made.alias, enabled: false }),
    deleteAlias: (b) => assert.deepEqual(b, { success: true }),
    listDedicatedIps: (b, f) => assert.ok(b.data.some((ip: { id: string }) => ip.id === f.made.dedicatedIp), 'the list holds the IP requested in setup'),
    createDedicatedIp: (b) => assert.deepEqual({ ip: b.data.ip, status: b.data.status, pool: b.data.pool, progress: b.data.warmup_progress }, { ip: null, status: 'provisioning', pool: `${ipPool}-created`, progress: 0 }),
    updateDedicatedIp: (b, f) => assert.deepEqual({ id: b.data.id, pool: b.data.pool }, { id: f.made.dedicatedIp, pool: `${ipPool}-moved` }),
    deleteDedicatedIp: (b) => assert.deepEqual(b, { success: true }),
    listInboundRoutes: (b, f) => assert.ok(b.data.some((r: { id: string }) => r.id === f.made.inboundRoute), 'the list holds the route configured in setup'),
    createInboundRoute: (b) => {
      assert.equal(b.data.domain, b.data.domain.toLowerCase(), 'the domain is stored in lower case');
      assert.ok(b.data.domain.endsWith(suffix));
      assert.equal(b.data.webhook_url, hook);
      assert.ok(b.data.mx_records.length >= 1, 'the MX records to publish are named');
    },
    deleteInboundRoute: (b) => assert.deepEqual(b, { success: true }),
    generateSubjectLines: (b) => {
      const rates = b.data.suggestions.map((s: { predicted_open_rate?: number }) => s.predicted_open_rate ?? 0);
      assert.equal(b.data.suggestions.length, 3, 'count is honoured');
      assert.deepEqual(rates, [...rates].sort((x, y) => y - x), 'best first');
    },
  },

  refusals: [
    { id: 'listAliases', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/aliases', { params: { query: { limit: 101 } } })) },
    { id: 'listAliases', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/aliases')) },
    {
      id: 'createAlias',
      status: 409,
      why: 'the account already has the alias (another case)',
      call: async (f) => {
        const { alias } = await newAlias(f, 'twice');
        return outcomeOf(await f.api.POST('/v1/aliases', { body: { alias: alias.toUpperCase(), forward_to: ['team@example.org'] } }));
      },
    },
    { id: 'createAlias', status: 422, why: 'an address outside the account\'s sending domains', call: async (f) => outcomeOf(await f.api.POST('/v1/aliases', { body: { alias: `${freshLabel('x')}@elsewhere${suffix}`, forward_to: ['team@example.org'] } })) },
    {
      id: 'createAlias',
      status: 400,
      why: 'an alias forwarding to itself',
      call: async (f) => {
        const alias = aliasAt(f, 'loop');
        return outcomeOf(await f.api.POST('/v1/aliases', { body: { alias, forward_to: [alias] } }));
      },
    },
    { id: 'createAlias', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/aliases', { body: { alias: aliasAt(f, 'scoped'), forward_to: ['team@example.org'] } })) },
    { id: 'createAlias', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/aliases') },
    { id: 'updateAlias', status: 404, why: 'no alias with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/aliases', { params: { query: { id: unknownId } }, body: { enabled: true } })) },
    { id: 'updateAlias', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/aliases', { params: { query: { id: unknownId } }, body: { enabled: true } })) },
    { id: 'updateAlias', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/aliases?id=${unknownId}`) },
    { id: 'deleteAlias', status: 404, why: 'no alias with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/aliases', { params: { query: { id: unknownId } } })) },
    { id: 'deleteAlias', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/aliases', { params: { query: { id: unknownId } } })) },

    { id: 'listDedicatedIps', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/dedicated-ips', { params: { query: { limit: 101 } } })) },
    { id: 'listDedicatedIps', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/dedicated-ips')) },
    { id: 'createDedicatedIp', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/dedicated-ips', { body: { pool: ipPool } })) },
    { id: 'createDedicatedIp', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/dedicated-ips') },
    { id: 'updateDedicatedIp', status: 404, why: 'no dedicated IP with that id', call: async (f) => outcomeOf(await f.api.PATCH('/v1/dedicated-ips', { params: { query: { id: unknownId } }, body: { pool: ipPool } })) },
    {
      id: 'updateDedicatedIp',
      status: 409,
      why: 'the IP was released',
      call: async (f) => {
        const { id } = await newIp(f);
        required('release the IP', await f.api.DELETE('/v1/dedicated-ips', { params: { query: { id } } }), 200);
        return outcomeOf(await f.api.PATCH('/v1/dedicated-ips', { params: { query: { id } }, body: { pool: `${ipPool}-late` } }));
      },
    },
    {
      id: 'updateDedicatedIp',
      status: 422,
      why: 'a PTR name for an IP still provisioning (no address to resolve to)',
      call: async (f) => {
        const { id } = await newIp(f);
        return outcomeOf(await f.api.PATCH('/v1/dedicated-ips', { params: { query: { id } }, body: { reverse_dns: `mta.${f.made.infraDomain}` } }));
      },
    },
    { id: 'updateDedicatedIp', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).PATCH('/v1/dedicated-ips', { params: { query: { id: unknownId } }, body: { pool: ipPool } })) },
    { id: 'updateDedicatedIp', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'PATCH', `/v1/dedicated-ips?id=${unknownId}`) },
    { id: 'deleteDedicatedIp', status: 404, why: 'no dedicated IP with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/dedicated-ips', { params: { query: { id: unknownId } } })) },
    { id: 'deleteDedicatedIp', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/dedicated-ips', { params: { query: { id: unknownId } } })) },

    { id: 'listInboundRoutes', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/inbound', { params: { query: { limit: 101 } } })) },
    { id: 'listInboundRoutes', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/inbound')) },
    { id: 'createInboundRoute', status: 409, why: 'the domain already has a route (another case, trailing dot)', call: async (f) => outcomeOf(await f.api.POST('/v1/inbound', { body: { domain: `${f.made.inboundDomain!.toUpperCase()}.`, webhook_url: hook } })) },
    { id: 'createInboundRoute', status: 400, why: 'a host name without a top-level domain', call: async (f) => outcomeOf(await f.api.POST('/v1/inbound', { body: { domain: 'localhost', webhook_url: hook } })) },
    { id: 'createInboundRoute', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/inbound', { body: { domain: freshDomain('scoped'), webhook_url: hook } })) },
    { id: 'createInboundRoute', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/inbound') },
    { id: 'deleteInboundRoute', status: 404, why: 'no inbound route with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/inbound', { params: { query: { id: unknownId } } })) },
    { id: 'deleteInboundRoute', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/inbound', { params: { query: { id: unknownId } } })) },

    { id: 'generateSubjectLines', status: 400, why: 'both content and topic', call: async (f) => outcomeOf(await f.api.POST('/v1/ai/subject-lines', { body: { content: 'Hello', topic: 'Hello' } as never })) },
    { id: 'generateSubjectLines', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/ai/subject-lines', { body: { topic: 'Spring sale' } })) },
    { id: 'generateSubjectLines', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/ai/subject-lines') },
  ],
};
