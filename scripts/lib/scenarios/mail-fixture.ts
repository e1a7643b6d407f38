import { createMailClient, type MailClient } from '../../../generated/mail/client.gen.js';
import { patientFetch, type ScenarioContext, type ScenarioPart } from './scenario.js';
import type { operations } from '../../../generated/mail/types.gen.js';

/** What every part of the mail scenario works on: the service, the caller's key, a dashboard session of the same user. */
export interface MailFixture {
  ctx: ScenarioContext;
  /** the caller's API key (the context's credentials) */
  api: MailClient;
  /** the same user's dashboard session, signed in through the development login */
  dashboard: MailClient;
  /** the `session` cookie value behind `dashboard` */
  session: string;
  /** what each part's setup made, by name */
  made: Record<string, string>;
}

export type MailScenarioPart = ScenarioPart<MailFixture, operations>;

/** A body of another media type where the operation takes JSON (or CSV): the declared 415. */
export async function notJson(f: MailFixture, method: string, path: string, headers: Record<string, string> = f.ctx.headers) {
  const response = await patientFetch(f.ctx)(`${f.ctx.baseUrl}${path}`, { method, headers: { ...headers, 'content-type': 'text/plain' }, body: 'plain text' });
  return { status: response.status, body: await response.json() };
}

/** Unique per run, so a scenario against a long-running stub never collides with its own earlier data. */
export const fresh = (label: string) => `${label}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}@example.com`;

/** The seeded OAuth token of the same user holding only the `send` scope: what a scope refusal needs. */
export const sendOnly = (f: MailFixture) => createMailClient({ baseUrl: f.ctx.baseUrl, headers: { authorization: 'Bearer msk_test_oauth_send' }, fetch: patientFetch(f.ctx) });

/** An id no seeded or created resource has: what a 404 needs. */
export const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';

/**
 * Calls with a key restricted to a new sender account (`allowed_account_id`), made through the
 * dashboard and revoked afterwards so a long-running stub keeps room under the key limit.
 */
export async function withRestrictedKey<T>(f: MailFixture, call: (client: MailClient) => Promise<T>): Promise<T> {
  const account = await f.dashboard.POST('/accounts', { body: { name: 'Restricted sender', email: fresh('sender') } });
  if (account.response.status !== 201 || !account.data) throw new Error(`create a sender account: ${account.response.status}`);
  const key = await f.dashboard.POST('/v1/keys', { body: { name: 'Restricted scenario key', allowed_account_id: account.data.data.id } });
  if (key.response.status !== 201 || !key.data) throw new Error(`create a restricted key: ${key.response.status}`);
  try {
    return await call(createMailClient({ baseUrl: f.ctx.baseUrl, headers: { authorization: `Bearer ${key.data.data.key}` }, fetch: patientFetch(f.ctx) }));
  } finally {
    await f.dashboard.DELETE('/v1/keys', { params: { query: { id: key.data.data.id } } });
  }
}
