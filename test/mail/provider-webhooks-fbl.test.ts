/**
 * The feedback-loop webhook through HTTP (issue 15, "Provider webhooks"): ARF reports (RFC 5965)
 * in the three content types, RFC 5965's own examples, the secret in either header, a repeated
 * report ignored, and a complaint about one of the stub's messages suppressing the recipient for
 * its sender only.
 */
import { describe, expect, test } from 'vitest';
import { answered, mailForEachTest } from './identity-support.js';
import { call, contactStatus, fixture, recordBus, secrets, sentBy, stubReport, suppressions } from './provider-webhooks-support.js';

const mail = mailForEachTest();

const bySecret = { 'x-webhook-secret': secrets.fbl };
const report = (body: string, type = 'message/rfc822', headers: Record<string, string> = bySecret, status = 200) =>
  call(mail, 'POST', '/webhooks/fbl', status, { body, headers: { ...headers, 'content-type': type } });

describe('GET /webhooks/fbl', () => {
  test('answers the published health body without authentication', async () => {
    expect(await call(mail, 'GET', '/webhooks/fbl', 200)).toEqual({ status: 'ok', accepts: ['message/rfc822', 'application/json', 'text/plain'] });
  });

  test('rate limited per caller: the 121st call within 60 s answers 429, and the window clears on the stub clock', async () => {
    for (let i = 0; i < 120; i++) await call(mail, 'GET', '/webhooks/fbl', 200);
    const refused = await fetch(`${mail.baseUrl}/webhooks/fbl`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    mail.clock.advance(60_000);
    await call(mail, 'GET', '/webhooks/fbl', 200);
  });
});

describe('RFC 5965 examples', () => {
  test('Appendix B, optional fields: the type and the original recipient are read; not a message of the stub, so nothing is suppressed', async () => {
    const body = await report(fixture('rfc5965-optional-fields.eml'));
    expect(body).toEqual({ success: true, feedbackType: 'abuse', recipient: 'user@example.com', suppressed: false });
    expect(mail.app.providerLog.events).toMatchObject([{ source: 'fbl', kind: 'complained', email: 'user@example.com', messageId: null, userIds: [] }]);
  });

  test('Appendix B, simple report: no recipient named, recipient null', async () => {
    expect(await report(fixture('rfc5965-simple.eml'), 'text/plain')).toEqual({ success: true, feedbackType: 'abuse', recipient: null, suppressed: false });
  });
});

describe('a complaint about a message the stub sent', () => {
  test('suppresses the recipient for the sender, sets the contact complained and emits email.complained', async () => {
    answered(await mail.key('msk_test_max').POST('/v1/contacts', { body: { email: 'ada@example.com' } }), 201, '/v1/contacts', 'post');
    answered(await mail.key('msk_test_pro').POST('/v1/contacts', { body: { email: 'ada@example.com' } }), 201, '/v1/contacts', 'post');
    const messageId = await sentBy(mail, ['ada@example.com']);
    const bus = recordBus(mail, 'email.complained');
    expect(await report(stubReport({ messageId, recipient: 'ada@example.com' }))).toEqual({ success: true, feedbackType: 'abuse', recipient: 'ada@example.com', suppressed: true });
    expect(await suppressions(mail)).toContainEqual(expect.objectContaining({ email: 'ada@example.com', reason: 'complained' }));
    expect(await contactStatus(mail, 'ada@example.com')).toBe('complained');
    expect(bus).toEqual([{ event: 'email.complained', payload: { userId: 'usr_max', messageId, email: 'ada@example.com' } }]);
    // Another user's contact with the same address is not theirs to lose.
    expect(await suppressions(mail, 'msk_test_pro')).toEqual([]);
    expect(await contactStatus(mail, 'ada@example.com', 'msk_test_pro')).toBe('subscribed');
  });

  test('without a contact, the address is still suppressed', async () => {
    const messageId = await sentBy(mail, ['nocontact@example.com']);
    expect((await report(stubReport({ messageId, recipient: 'nocontact@example.com' }))).suppressed).toBe(true);
    expect((await suppressions(mail)).map((s) => s.email)).toContain('nocontact@example.com');
  });

  test('the message named by X-Mail-Message-Id instead of Message-ID', async () => {
    const messageId = await sentBy(mail, ['header@example.com']);
    const raw = stubReport({ messageId: 'elsewhere', recipient: 'header@example.com' }).replace('Subject: Your order has shipped\r\n', `Subject: Your order has shipped\r\nX-Mail-Message-Id: ${messageId}\r\n`);
    expect((await report(raw)).suppressed).toBe(true);
  });

  test('a repeated report (same report Message-ID) is ignored: 200, suppressed false, nothing emitted again', async () => {
    const messageId = await sentBy(mail, ['twice@example.com']);
    const raw = stubReport({ messageId, recipient: 'twice@example.com', reportId: 'report-1' });
    expect((await report(raw)).suppressed).toBe(true);
    const bus = recordBus(mail, 'email.complained');
    expect(await report(raw)).toEqual({ success: true, feedbackType: 'abuse', recipient: 'twice@example.com', suppressed: false });
    expect(bus).toEqual([]);
    expect(mail.app.providerLog.events).toHaveLength(1);
  });

  test('a report without its own Message-ID repeats by content, whatever the content type', async () => {
    await report(fixture('rfc5965-optional-fields.eml'), 'message/rfc822');
    await report(fixture('rfc5965-optional-fields.eml').replace(/\n/g, '\r\n'), 'text/plain');
    await report(JSON.stringify({ body: fixture('rfc5965-optional-fields.eml') }), 'application/json');
    expect(mail.app.providerLog.events).toHaveLength(1);
  });

  test('a not-spam report suppresses nothing', async () => {
    const messageId = await sentBy(mail, ['fine@example.com']);
    expect(await report(stubReport({ messageId, recipient: 'fine@example.com', feedbackType: 'not-spam' }))).toMatchObject({ feedbackType: 'not-spam', suppressed: false });
    expect(await suppressions(mail)).toEqual([]);
  });

  test('a recipient the message did not go to is not suppressed (a report cannot name any address it likes)', async () => {
    const messageId = await sentBy(mail, ['real@example.com']);
    expect(await report(stubReport({ messageId, recipient: 'other@example.com' }))).toMatchObject({ recipient: 'other@example.com', suppressed: false });
    expect(await suppressions(mail)).toEqual([]);
  });
});

describe('content types and JSON fields', () => {
  test.each(['raw', 'email', 'message', 'body'])('JSON with the report in "%s"', async (field) => {
    const messageId = await sentBy(mail, [`${field}@example.com`]);
    const body = await report(JSON.stringify({ [field]: stubReport({ messageId, recipient: `${field}@example.com` }) }), 'application/json');
    expect(body).toMatchObject({ recipient: `${field}@example.com`, suppressed: true });
  });

  test('JSON fields are read in the order raw, email, message, body', async () => {
    const body = await report(JSON.stringify({ body: 'not a report', raw: fixture('rfc5965-optional-fields.eml') }), 'application/json');
    expect(body.recipient).toBe('user@example.com');
  });

  test('plain text, and the secret as a bearer token', async () => {
    const body = await report(fixture('rfc5965-optional-fields.eml'), 'text/plain', { authorization: `Bearer ${secrets.fbl}` });
    expect(body.feedbackType).toBe('abuse');
  });
});

describe('refusals', () => {
  test('a missing or wrong secret: 401, nothing recorded', async () => {
    await report(fixture('rfc5965-optional-fields.eml'), 'message/rfc822', {}, 401);
    await report(fixture('rfc5965-optional-fields.eml'), 'message/rfc822', { 'x-webhook-secret': 'wrong' }, 401);
    await report(fixture('rfc5965-optional-fields.eml'), 'message/rfc822', { authorization: 'Bearer msk_test_max' }, 401);
    expect(mail.app.providerLog.events).toEqual([]);
  });

  test.each([
    ['plain text', 'this is not a report', /not a multipart\/report/],
    ['a multipart that is not a report', 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n', /not a multipart\/report/],
    ['a report without a feedback-report part', 'Content-Type: multipart/report; report-type=feedback-report; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n', /no message\/feedback-report part/],
    ['a feedback report without Feedback-Type', 'Content-Type: multipart/report; report-type=feedback-report; boundary="b"\r\n\r\n--b\r\nContent-Type: message/feedback-report\r\n\r\nVersion: 1\r\n\r\n--b--\r\n', /no Feedback-Type/],
  ])('%s: 400', async (_label, raw, message) => {
    const body = await report(raw, 'text/plain', bySecret, 400);
    expect(body.error).toMatch(message);
    expect(mail.app.providerLog.events).toEqual([]);
  });

  test('JSON whose fields carry no report, or are empty: 400', async () => {
    await report(JSON.stringify({}), 'application/json', bySecret, 400);
    expect((await report(JSON.stringify({ raw: '   ' }), 'application/json', bySecret, 400)).error).toMatch(/carries no report/);
    await report(JSON.stringify({ raw: 42 }), 'application/json', bySecret, 400);
    await report('{"raw":', 'application/json', bySecret, 400);
  });

  test('an empty body and an undeclared content type are refused by the contract', async () => {
    await report('', 'message/rfc822', bySecret, 400);
    const response = await fetch(`${mail.baseUrl}/webhooks/fbl`, { method: 'POST', headers: { ...bySecret, 'content-type': 'application/xml' }, body: '<report/>' });
    expect([400, 415]).toContain(response.status);
  });
});
