/**
 * Frontend teams code against the mock: `npm run mock` serves every mail operation at `/mail`, and
 * the generated client types it. One call per tag, through the typed client, answered with the
 * contract's examples.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMailClient, type MailClient } from '../../generated/mail/client.gen.js';
import { startMockServer, type MockServer } from '../../mock/server.js';
import { loadContract } from '../../server-stubs/lib/contract.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';

const contract = contractChecker('mail');
const { document } = loadContract('mail');

let mock: MockServer;
let api: MailClient; // API key
let dashboard: MailClient; // session cookie
let anonymous: MailClient;

beforeAll(async () => {
  mock = await startMockServer(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${mock.port}/mail`;
  api = createMailClient({ baseUrl, headers: { Authorization: 'Bearer msk_test_max' } });
  dashboard = createMailClient({ baseUrl, headers: { Cookie: 'session=sess_test_max' } });
  anonymous = createMailClient({ baseUrl });
}, 120_000);

afterAll(async () => {
  await mock?.close();
});

type Call = () => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** One sample operation per tag: [tag, path, method, call]. */
const samples: Array<[string, string, string, Call]> = [
  ['OAuth', '/.well-known/oauth-authorization-server', 'get', () => anonymous.GET('/.well-known/oauth-authorization-server')],
  [
    'Sending',
    '/v1/send',
    'post',
    () =>
      api.POST('/v1/send', {
        body: { from: { email: 'hello@example.com', name: 'Example Ltd' }, to: [{ email: 'ada@example.com' }], subject: 'Welcome', html: '<p>Hi</p>', text: 'Hi', idempotency_key: 'welcome-1' },
      }),
  ],
  [
    'Channels',
    '/v1/channels/push/send',
    'post',
    () => api.POST('/v1/channels/push/send', { body: { contact_id: '5b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', title: 'Shipped', message: 'Order 1042 is on its way.' } }),
  ],
  ['Contacts', '/v1/contacts', 'get', () => api.GET('/v1/contacts')],
  ['Segments', '/api/segments', 'get', () => dashboard.GET('/api/segments', { params: { query: { page: 1, limit: 20 } } })],
  ['Validation', '/v1/validate', 'get', () => api.GET('/v1/validate')],
  ['DMARC monitoring', '/v1/dmarc/domains', 'get', () => api.GET('/v1/dmarc/domains')],
  ['Webhooks', '/v1/webhooks', 'get', () => api.GET('/v1/webhooks')],
  ['Provider webhooks', '/webhooks/fbl', 'get', () => anonymous.GET('/webhooks/fbl')],
  ['Notifications', '/api/notifications', 'get', () => dashboard.GET('/api/notifications', { params: { query: { unread_only: true, limit: 10 } } })],
  ['Referrals', '/referrals', 'get', () => dashboard.GET('/referrals')],
  ['Campaigns', '/v1/campaigns', 'get', () => api.GET('/v1/campaigns')],
  ['Templates', '/v1/templates', 'get', () => api.GET('/v1/templates')],
  ['Automations', '/v1/automations', 'get', () => api.GET('/v1/automations')],
  ['Domains', '/v1/domains', 'get', () => api.GET('/v1/domains')],
  ['Aliases', '/v1/aliases', 'get', () => api.GET('/v1/aliases')],
  ['Dedicated IPs', '/v1/dedicated-ips', 'get', () => api.GET('/v1/dedicated-ips')],
  ['Inbound', '/v1/inbound', 'get', () => api.GET('/v1/inbound')],
  ['A/B tests', '/v1/ab-tests', 'get', () => api.GET('/v1/ab-tests')],
  ['AI', '/v1/ai/subject-lines', 'post', () => api.POST('/v1/ai/subject-lines', { body: { topic: 'Spring sale', tone: 'friendly', count: 3 } })],
  ['Analytics', '/v1/analytics', 'get', () => api.GET('/v1/analytics')],
  ['Sandbox', '/v1/sandbox', 'get', () => api.GET('/v1/sandbox')],
  ['Tracking', '/t/open/{token}', 'get', () => anonymous.GET('/t/open/{token}', { params: { path: { token: '7d9f8b6a-1c2e-4f3a-9b8c-0d1e2f3a4b5c' } }, parseAs: 'blob' })],
  ['API keys', '/v1/keys', 'get', () => api.GET('/v1/keys')],
  ['Plan and billing', '/v1/plan-limits', 'get', () => api.GET('/v1/plan-limits')],
  ['Accounts', '/accounts', 'get', () => dashboard.GET('/accounts')],
  ['Sessions', '/api/auth/logout', 'post', () => dashboard.POST('/api/auth/logout')],
];

describe('the mail mock through the generated client', () => {
  test('the samples cover every tag of the contract', () => {
    const tags = (document.tags as Array<{ name: string }>).map((t) => t.name);
    expect(samples.map(([tag]) => tag).sort()).toEqual([...tags].sort());
  });

  test.each(samples)('%s: %s answers its example', async (_tag, path, method, call) => {
    const { data, error, response } = await call();
    expect(error, `${response.status} ${JSON.stringify(error)}`).toBeUndefined();
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('sl-violations'), 'the request is valid for the contract').toBeNull();
    // The tracking pixel is an image: its media type is what the contract can say of it.
    if ((response.headers.get('content-type') ?? '').includes('json')) expect(contract.responseErrors(path, method, String(response.status), data)).toEqual([]);
    else expect(response.headers.get('content-type')).toMatch(/^image\/gif/);
  });

  test('the mock refuses what the contract refuses: a session route without the cookie', async () => {
    const { error, response } = await anonymous.GET('/api/segments');
    expect(response.status).toBe(401);
    expect(error).toBeDefined();
  });
});
