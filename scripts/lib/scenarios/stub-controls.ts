/**
 * The development controls' scenario: received mail handed to the mail stub (DECISIONS mail-4)
 * reaches an inbound route made for the run, and the seo stub's state goes out and back in unchanged.
 * The clock and reset controls are checked by their examples and the platform tests; resetting here
 * would wipe what other scenarios made. Coverage is read and cleared by its examples; here only its refusals.
 */
import assert from 'node:assert/strict';
import { ScenarioSetupError, type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';
import type { operations } from '../../../generated/stub-controls/types.gen.js';

interface ControlsFixture {
  ctx: ScenarioContext;
  /** the inbound domain made for the run */
  domain: string;
}

/** The mail stub beside the controls, as a Max user (CONVENTIONS §6 seeds). */
const mailUrl = (ctx: ScenarioContext) => ctx.baseUrl.replace(/\/_stub$/, '/mail');

const raw = (to: string, from = 'From: Scenario <scenario@example.com>') => `${from}\r\nTo: ${to}\r\nSubject: Scenario\r\nMessage-ID: <scenario@example.com>\r\n\r\nHello from the scenario.\r\n`;

async function coverage(f: ControlsFixture, method: 'GET' | 'DELETE', service: string) {
  const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/coverage?service=${encodeURIComponent(service)}`, { method, headers: f.ctx.headers });
  return { status: response.status, body: await response.json() };
}

async function control(f: ControlsFixture, path: string, init: RequestInit = {}) {
  const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}${path}`, { ...init, headers: { ...f.ctx.headers, ...(init.headers as Record<string, string>) } });
  return { status: response.status, body: await response.json() };
}

/** The seo stub's state, put back as it is: every other service untouched. */
async function roundTrip(f: ControlsFixture) {
  const exported = await control(f, '/state?service=seo');
  if (exported.status !== 200) return exported;
  return control(f, '/state', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(exported.body) });
}

const putState = (f: ControlsFixture, body: unknown) => control(f, '/state', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function hand(f: ControlsFixture, body: string, type = 'message/rfc822') {
  const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/mail/inbound`, { method: 'POST', headers: { ...f.ctx.headers, 'content-type': type }, body });
  return { status: response.status, body: await response.json() };
}

export const stubControlsScenario: ServiceScenario<ControlsFixture, operations> = {
  async setup(ctx) {
    const domain = `in-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.scenario-mail.example`;
    const response = await transportOf(ctx)(`${mailUrl(ctx)}/v1/inbound`, {
      method: 'POST',
      headers: { authorization: 'Bearer msk_test_max', 'content-type': 'application/json' },
      body: JSON.stringify({ domain, webhook_url: 'https://hooks.example.com/inbound', secret: 'scenario-signing-secret' }),
    });
    if (response.status !== 201) throw new ScenarioSetupError(`create an inbound route on the mail stub: expected 201, got ${response.status}`);
    await response.body?.cancel();
    return { ctx, domain };
  },

  calls: {
    receiveMailInbound: (f) => hand(f, raw(`support@${f.domain}`)),
    exportStubState: (f) => control(f, '/state?service=seo'),
    importStubState: roundTrip,
  },

  expectations: {
    receiveMailInbound: (b, f) => assert.deepEqual({ to: b.events.map((e: { to: string }) => e.to), unrouted: b.unrouted }, { to: [`support@${f.domain}`], unrouted: [] }),
    exportStubState: (b) => assert.deepEqual({ format: b.format, services: Object.keys(b.services) }, { format: 1, services: ['seo'] }),
    importStubState: (b) => assert.deepEqual(b, { loaded: ['seo'] }),
  },

  refusals: [
    { id: 'receiveMailInbound', status: 400, why: 'a message without a From address', call: (f) => hand(f, raw(`support@${f.domain}`, 'X-Nobody: 1')) },
    { id: 'receiveMailInbound', status: 404, why: 'a recipient domain without a route', call: (f) => hand(f, raw('someone@nowhere.scenario-mail.example')) },
    { id: 'receiveMailInbound', status: 415, why: 'a body that is not message/rfc822', call: (f) => hand(f, raw(`support@${f.domain}`), 'text/plain') },
    { id: 'getStubCoverage', status: 400, why: 'an empty service slug', call: (f) => coverage(f, 'GET', '') },
    { id: 'getStubCoverage', status: 404, why: 'a slug no service has', call: (f) => coverage(f, 'GET', 'no-such-service') },
    { id: 'clearStubCoverage', status: 400, why: 'an empty service slug', call: (f) => coverage(f, 'DELETE', '') },
    { id: 'clearStubCoverage', status: 404, why: 'a slug no service has', call: (f) => coverage(f, 'DELETE', 'no-such-service') },
    { id: 'exportStubState', status: 400, why: 'an empty service slug', call: (f) => control(f, '/state?service=') },
    { id: 'exportStubState', status: 404, why: 'a service that does not exist', call: (f) => control(f, '/state?service=no-such-service') },
    { id: 'importStubState', status: 400, why: 'an export of another format version', call: (f) => putState(f, { format: 2, services: {} }) },
  ],
};

/** The service's scenario, found by its file name (index.ts). */
export default stubControlsScenario;
