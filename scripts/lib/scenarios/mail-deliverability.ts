/**
 * The deliverability part of the mail scenario: DMARC monitoring and sending domains (DNS checked
 * through the stub's resolver). Expectations never depend on DNS answers: the target may have no
 * network, and the names used live under the reserved `.example` top-level domain. Each run first
 * removes what earlier runs left, so a long-running stub never fills the plan's domain allowance.
 */
import assert from 'node:assert/strict';
import { notJson, sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required } from './scenario.js';

const suffix = '.scenario-mail.example';

/** Unique per run, so a scenario against a long-running stub never collides with its own earlier domains. */
const freshDomain = (label: string) => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}${suffix}`;

async function removeEarlierRuns(f: MailFixture) {
  const monitored = required('list monitored domains', await f.api.GET('/v1/dmarc/domains'), 200).data;
  for (const d of monitored.filter((x) => x.domain.endsWith(suffix))) await f.api.DELETE('/v1/dmarc/domains', { params: { query: { domain_id: d.id } } });
  const sending = required('list sending domains', await f.api.GET('/v1/domains', { params: { query: { limit: 100 } } }), 200).data;
  for (const d of sending.filter((x) => x.domain.endsWith(suffix))) await f.api.DELETE('/v1/domains', { params: { query: { id: d.id } } });
}

async function newMonitored(f: MailFixture, label: string) {
  return required(`monitor the domain "${label}"`, await f.api.POST('/v1/dmarc/domains', { body: { domain: freshDomain(label) } }), 201).data;
}

async function newSending(f: MailFixture, label: string) {
  return required(`add the sending domain "${label}"`, await f.api.POST('/v1/domains', { body: { domain: freshDomain(label) } }), 201).data;
}

export const deliverabilityPart: MailScenarioPart = {
  async setup(f) {
    await removeEarlierRuns(f);
    const monitored = await newMonitored(f, 'monitored');
    f.made.monitoredDomain = monitored.id;
    f.made.monitoredName = monitored.domain;
    const sending = await newSending(f, 'sending');
    f.made.sendingDomain = sending.id;
    f.made.sendingName = sending.domain;
  },

  calls: {
    listMonitoredDomains: async ({ api }) => outcomeOf(await api.GET('/v1/dmarc/domains')),
    addMonitoredDomain: async ({ api }) => outcomeOf(await api.POST('/v1/dmarc/domains', { body: { domain: freshDomain('added'), dkim_selector: 'scenario' } })),
    removeMonitoredDomain: async (f) => {
      const { id } = await newMonitored(f, 'to-remove');
      return outcomeOf(await f.api.DELETE('/v1/dmarc/domains', { params: { query: { domain_id: id } } }));
    },
    listDomains: async ({ api }) => outcomeOf(await api.GET('/v1/domains', { params: { query: { limit: 100 } } })),
    createDomain: async ({ api }) => outcomeOf(await api.POST('/v1/domains', { body: { domain: freshDomain('created').toUpperCase() } })),
    deleteDomain: async (f) => {
      const { id } = await newSending(f, 'to-delete');
      return outcomeOf(await f.api.DELETE('/v1/domains', { params: { query: { id } } }));
    },
  },

  expectations: {
    listMonitoredDomains: (b, f) => {
      const mine = b.data.find((d: { id: string }) => d.id === f.made.monitoredDomain);
      assert.ok(mine, 'the list holds the domain monitored in setup');
      assert.deepEqual({ domain: mine.domain, selector: mine.dkim_selector }, { domain: f.made.monitoredName, selector: 'default' });
    },
    addMonitoredDomain: (b) => {
      assert.equal(b.data.dkim_selector, 'scenario');
      assert.ok(b.data.domain.endsWith(suffix));
      assert.equal(b.data.overall_score, b.data.dns_check.overallScore, 'overall_score is the score of the check');
    },
    removeMonitoredDomain: (b) => assert.deepEqual(b, { success: true }),
    listDomains: (b, f) => assert.ok(b.data.some((d: { id: string }) => d.id === f.made.sendingDomain), 'the list holds the domain added in setup'),
    createDomain: (b) => {
      const domain: string = b.data.domain;
      assert.equal(domain, domain.toLowerCase(), 'the domain is stored in lower case');
      assert.deepEqual(
        b.data.dns_records.map((r: { purpose: string; name: string }) => [r.purpose, r.name]),
        [['spf', domain], ['dkim', `svc._domainkey.${domain}`], ['dmarc', `_dmarc.${domain}`], ['return_path', `bounces.${domain}`]],
      );
      assert.equal(b.data.verified_at === null, b.data.status !== 'verified');
    },
    deleteDomain: (b) => assert.deepEqual(b, { success: true }),
  },

  refusals: [
    { id: 'addMonitoredDomain', status: 409, why: 'the domain is already monitored (another case)', call: async (f) => outcomeOf(await f.api.POST('/v1/dmarc/domains', { body: { domain: f.made.monitoredName!.toUpperCase() } })) },
    { id: 'addMonitoredDomain', status: 400, why: 'a host name without a top-level domain', call: async (f) => outcomeOf(await f.api.POST('/v1/dmarc/domains', { body: { domain: 'localhost' } })) },
    { id: 'addMonitoredDomain', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/dmarc/domains', { body: { domain: freshDomain('scoped') } })) },
    { id: 'addMonitoredDomain', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/dmarc/domains') },
    { id: 'listMonitoredDomains', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/dmarc/domains')) },
    { id: 'removeMonitoredDomain', status: 404, why: 'no monitored domain with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/dmarc/domains', { params: { query: { domain_id: unknownId } } })) },
    { id: 'removeMonitoredDomain', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/dmarc/domains', { params: { query: { domain_id: unknownId } } })) },
    { id: 'createDomain', status: 409, why: 'the account already has the domain (another case, trailing dot)', call: async (f) => outcomeOf(await f.api.POST('/v1/domains', { body: { domain: `${f.made.sendingName!.toUpperCase()}.` } })) },
    { id: 'createDomain', status: 400, why: 'a host name without a top-level domain', call: async (f) => outcomeOf(await f.api.POST('/v1/domains', { body: { domain: 'localhost' } })) },
    { id: 'createDomain', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).POST('/v1/domains', { body: { domain: freshDomain('scoped') } })) },
    { id: 'createDomain', status: 415, why: 'a body that is not JSON', call: (f) => notJson(f, 'POST', '/v1/domains') },
    { id: 'listDomains', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.api.GET('/v1/domains', { params: { query: { limit: 101 } } })) },
    { id: 'listDomains', status: 403, why: 'a token without the read scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/domains')) },
    { id: 'deleteDomain', status: 404, why: 'no sending domain with that id', call: async (f) => outcomeOf(await f.api.DELETE('/v1/domains', { params: { query: { id: unknownId } } })) },
    { id: 'deleteDomain', status: 400, why: 'an id that is not a UUID', call: async (f) => outcomeOf(await f.api.DELETE('/v1/domains', { params: { query: { id: 'not-a-uuid' } } })) },
    { id: 'deleteDomain', status: 403, why: 'a token without the write scope', call: async (f) => outcomeOf(await sendOnly(f).DELETE('/v1/domains', { params: { query: { id: unknownId } } })) },
  ],
};
