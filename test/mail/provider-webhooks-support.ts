/**
 * Shared helpers of the provider-webhook tests (not a test file itself): raw calls with the
 * provider secrets (their bodies are not all JSON), a sent message to report on, the bus recorded.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { MailEventName, MailEvents } from '../../server-stubs/mail/events.js';
import { providerSecretsFromEnv } from '../../server-stubs/mail/auth.js';
import { answered, contract, type MailStub } from './identity-support.js';

export const secrets = providerSecretsFromEnv({});

export const fixture = (name: string) => readFileSync(new URL(`./fixtures/arf/${name}`, import.meta.url), 'utf8');

/** The report about one of the stub's messages, with the placeholders filled. */
export function stubReport(fields: { messageId: string; recipient: string; reportId?: string; feedbackType?: string }): string {
  return fixture('stub-message-report.eml')
    .replaceAll('{{MESSAGE_ID}}', fields.messageId)
    .replaceAll('{{RECIPIENT}}', fields.recipient)
    .replaceAll('{{REPORT_ID}}', fields.reportId ?? randomUUID())
    .replaceAll('{{FEEDBACK_TYPE}}', fields.feedbackType ?? 'abuse')
    .replace(/\r?\n/g, '\r\n');
}

/** A raw call; the answer's status is checked and its body held to the contract. */
export async function call(mail: MailStub, method: 'GET' | 'POST', path: string, status: number, init: { body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${mail.baseUrl}${path}`, { method, headers: init.headers, body: init.body });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(contract.responseErrors(path, method.toLowerCase(), status, body)).toEqual([]);
  return body;
}

/** A message usr_max sent through `POST /v1/send`; answers its id. */
export async function sentBy(mail: MailStub, to: string[], key = 'msk_test_max'): Promise<string> {
  const body = { from: { email: 'hello@example.com' }, to: to.map((email) => ({ email })), subject: 'Your order has shipped', text: 'Hello, your order has shipped.', html: '<p>Hello, your order has shipped.</p>' };
  return answered(await mail.key(key).POST('/v1/send', { body }), 200, '/v1/send', 'post').data.id;
}

/** Every payload the bus carried for these events, from now on. */
export function recordBus<E extends MailEventName>(mail: MailStub, ...names: E[]) {
  const seen: Array<{ event: E; payload: MailEvents[E] }> = [];
  for (const event of names) mail.app.events.on(event, (payload) => seen.push({ event, payload }));
  return seen;
}

export async function suppressions(mail: MailStub, key = 'msk_test_max') {
  return answered(await mail.key(key).GET('/v1/suppressions', { params: { query: { limit: 100 } } }), 200, '/v1/suppressions', 'get').data as Array<{ email: string; reason: string }>;
}

export async function contactStatus(mail: MailStub, email: string, key = 'msk_test_max'): Promise<string | undefined> {
  const list = answered(await mail.key(key).GET('/v1/contacts', { params: { query: { email } } }), 200, '/v1/contacts', 'get');
  return list.data[0]?.status;
}
