/**
 * The verifier the generated mail client exports follows the published scheme: HMAC-SHA256 (hex)
 * over the raw body, header `sha256=<hex>`, constant-time comparison, reject on mismatch.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { signWebhookPayload, verifyWebhookSignature, webhookNames, webhookSignature, type WebhookPayload } from '../../generated/mail/client.gen.js';

const secret = 'whsec_0123456789abcdef';
const raw = JSON.stringify({ event: 'email.opened', timestamp: '2026-03-01T12:00:00Z', data: { message_id: 'msg_1', email: 'ada@example.com', campaign_id: null } });
const reference = (body: string, key: string) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;

describe('mail webhook signatures', () => {
  test('the header names and prefix are the published ones', () => {
    expect(webhookSignature).toEqual({ header: 'X-Service-Signature', algorithm: 'hmac-sha256', encoding: 'hex', prefix: 'sha256=' });
    expect(webhookNames).toContain('formB:email.delivered');
  });

  test('signing matches an independent HMAC-SHA256 over the raw body', async () => {
    expect(await signWebhookPayload(raw, secret)).toBe(reference(raw, secret));
    expect(await signWebhookPayload(new TextEncoder().encode(raw), secret)).toBe(reference(raw, secret));
  });

  test('a correct signature verifies', async () => {
    expect(await verifyWebhookSignature(raw, reference(raw, secret), secret)).toBe(true);
  });

  test.each([
    ['a changed body', `${raw} `, reference(raw, secret)],
    ['another secret', raw, reference(raw, 'another-secret-of-length')],
    ['no prefix', raw, reference(raw, secret).slice('sha256='.length)],
    ['a truncated digest', raw, reference(raw, secret).slice(0, -2)],
    ['an empty header', raw, ''],
  ])('%s is rejected', async (_case, body, header) => {
    expect(await verifyWebhookSignature(body, header, secret)).toBe(false);
  });

  test('a missing header is rejected', async () => {
    expect(await verifyWebhookSignature(raw, undefined, secret)).toBe(false);
    expect(await verifyWebhookSignature(raw, null, secret)).toBe(false);
  });

  test('payload types follow the contract', () => {
    const opened: WebhookPayload<'formA:email.opened'> = JSON.parse(raw);
    expect(opened.data.email).toBe('ada@example.com');
  });
});
