/**
 * Open and click tracking through HTTP (issue 15, "tracking: opened with the pixel, clicked through
 * a redirect"): a delivered copy, read from a local SMTP server, carries a pixel and tracked links
 * while the stored message keeps the user's HTML; loading the pixel and following a link raise
 * `email.opened` and `email.clicked` and feed the campaign counters, analytics and A/B results.
 */
import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { MailEvents } from '../../server-stubs/mail/events.js';
import { smtpRelay } from '../../server-stubs/mail/sending/relay.js';
import { answered, startMail, type MailStub } from './identity-support.js';

const trackingBase = 'http://tracking.test/mail';
const received: string[] = [];
let smtp: SMTPServer;
let mail: MailStub;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then((parsed) => {
        received.push(typeof parsed.html === 'string' ? parsed.html : '');
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  mail = await startMail({ relay: smtpRelay(`smtp://127.0.0.1:${port}`), trackingBaseUrl: trackingBase });
});
afterAll(async () => {
  mail.app.close();
  await mail.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});
beforeEach(async () => {
  await mail.app.runDue();
  mail.app.reset();
  received.length = 0;
});

const max = () => mail.key('msk_test_max');
const html = '<p>Hi <a href="https://shop.example/offer?a=1&amp;b=2">the offer</a> and <a href="mailto:help@example.com">help</a>, <a href="https://example.org/">home</a></p>';
/** A URL of the delivered copy, as this test reaches the stub. */
const local = (url: string) => url.replace(trackingBase, mail.baseUrl);
const srcOf = (copy: string, pattern: RegExp) => [...copy.matchAll(pattern)].map((m) => m[1]!);

async function deliveredCopy() {
  const sent = answered(await max().POST('/v1/send', { body: { from: { email: 'shop@example.com' }, to: [{ email: 'ada@example.com' }], subject: 'Offer', html } }), 200, '/v1/send', 'post').data;
  await mail.app.runDue();
  return { id: sent.id as string, copy: received.at(-1)! };
}

describe('the delivered copy', () => {
  test('carries tracked http(s) links and a pixel; other links and the stored message are left as they were', async () => {
    const { id, copy } = await deliveredCopy();
    expect(srcOf(copy, /href="([^"]+)"/g)).toEqual([`${trackingBase}/t/click/${id}.0`, 'mailto:help@example.com', `${trackingBase}/t/click/${id}.1`]);
    expect(srcOf(copy, /<img src="([^"]+)"/g)).toEqual([`${trackingBase}/t/open/${id}`]);
    expect(mail.app.outbox.get(id)!.html).toBe(html);
  });
});

describe('opens and clicks', () => {
  test('the pixel answers a GIF, raises email.opened once per load and counts the message opened once; image proxies are machine opens', async () => {
    const { id, copy } = await deliveredCopy();
    const opened: Array<MailEvents['email.opened']> = [];
    const off = mail.app.events.on('email.opened', (e) => opened.push(e));
    const pixel = local(srcOf(copy, /<img src="([^"]+)"/g)[0]!);
    const first = await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0 (Macintosh)' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/gif');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(await first.arrayBuffer()).subarray(0, 6).toString()).toBe('GIF89a');
    await (await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0 (via ggpht.com GoogleImageProxy)' } })).arrayBuffer();
    off();
    expect(opened.map((e) => [e.messageId, e.email, e.machineOpen])).toEqual([
      [id, 'ada@example.com', false],
      [id, 'ada@example.com', true],
    ]);
    expect(mail.app.engagement.openedAt(id)).toBe(mail.clock.now());
  });

  test('a tracked link redirects to its original address and raises email.clicked; an unknown link or message is a 404; an unknown pixel is the same GIF', async () => {
    const { id, copy } = await deliveredCopy();
    const clicked: string[] = [];
    const off = mail.app.events.on('email.clicked', (e) => clicked.push(e.url));
    const [offer, home] = srcOf(copy, /href="(http[^"]+)"/g).map(local);
    const redirect = await fetch(offer!, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://shop.example/offer?a=1&b=2');
    await redirect.body?.cancel();
    expect((await fetch(home!, { redirect: 'manual' })).headers.get('location')).toBe('https://example.org/');
    off();
    expect(clicked).toEqual(['https://shop.example/offer?a=1&b=2', 'https://example.org/']);
    const missing = await fetch(`${mail.baseUrl}/t/click/${id}.7`, { redirect: 'manual' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ success: false, error: 'Link not found' });
    expect((await fetch(`${mail.baseUrl}/t/click/0f0e0d0c-0b0a-4909-8807-060504030201.0`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${mail.baseUrl}/t/click/not-a-token`, { redirect: 'manual' })).status).toBe(400);
    const stranger = await fetch(`${mail.baseUrl}/t/open/0f0e0d0c-0b0a-4909-8807-060504030201`);
    expect([stranger.status, stranger.headers.get('content-type')]).toEqual([200, 'image/gif']);
    await stranger.arrayBuffer();
  });

  test('campaign counters, analytics and A/B results count opened and clicked messages', async () => {
    for (const email of ['one@example.com', 'two@example.com']) answered(await max().POST('/v1/contacts', { body: { email, tags: ['tracked'] } }), 201, '/v1/contacts', 'post');
    const segment = answered(
      await mail.session('sess_test_max').POST('/api/segments', { body: { name: 'Tracked', segment_type: 'static', filter_criteria: { operator: 'AND', rules: [{ field: 'tags', operator: 'contains', value: 'tracked' }] } } }),
      201,
      '/api/segments',
      'post',
    ).data;
    const campaign = answered(await max().POST('/v1/campaigns', { body: { name: 'Tracked', subject: 'Hi', from: { email: 'news@example.com' }, html, segment_id: segment.id } }), 201, '/v1/campaigns', 'post').data;
    const test = answered(await max().POST('/v1/ab-tests', { body: { campaign_id: campaign.id, variants: [{ name: 'A', subject: 'A' }, { name: 'B', subject: 'B' }], test_size_percent: 50 } }), 201, '/v1/ab-tests', 'post').data;
    answered(await max().POST('/v1/campaigns/{id}/send', { params: { path: { id: campaign.id } } }), 202, '/v1/campaigns/{id}/send', 'post');
    await mail.app.runDue();
    expect(received).toHaveLength(2);
    const copyOfB = mail.app.outbox.ofCampaign(campaign.id).find((m) => m.subject === 'B')!;
    const bHtml = received.find((copy) => copy.includes(copyOfB.id))!;
    await (await fetch(local(srcOf(bHtml, /href="(http[^"]+)"/g)[0]!), { redirect: 'manual' })).body?.cancel();
    const stats = answered(await max().GET('/v1/campaigns', { params: { query: { limit: 100 } } }), 200, '/v1/campaigns', 'get').data.find((c: { id: string }) => c.id === campaign.id).stats;
    expect(stats).toMatchObject({ sent: 2, delivered: 2, opened: 1, clicked: 1 });
    expect(answered(await max().GET('/v1/analytics', { params: { query: { campaign_id: campaign.id } } }), 200, '/v1/analytics', 'get').data.totals).toMatchObject({ opened: 1, clicked: 1 });
    mail.clock.advance(4 * 3600_000);
    await mail.app.runDue();
    const decided = answered(await max().GET('/v1/ab-tests'), 200, '/v1/ab-tests', 'get').data.find((t: { id: string }) => t.id === test.id);
    expect(decided.variants.map((v: { name: string; open_rate: number }) => [v.name, v.open_rate])).toEqual([
      ['A', 0],
      ['B', 1],
    ]);
    expect(decided.winner_variant_id).toBe(decided.variants[1].id);
  });
});
