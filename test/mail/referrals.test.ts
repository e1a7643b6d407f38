/**
 * Referrals through HTTP (issue 15, "Referrals"; DECISIONS mail-2 seeds): the summary, idempotent
 * code generation with share links on `DASHBOARD_URL`, the lifecycle (sign-up through the link →
 * `pending`, paid plan → `converted`, a milestone claim → `rewarded`), the leaderboard (up to 50,
 * others masked, `myRank`), milestones ordered by threshold, claims with 400/404/409/422 exactly as
 * published, a nudge that sends nothing, log-share that changes no count, and the session-only routes.
 */
import { describe, expect, test } from 'vitest';
import { dashboardUrlFromEnv, defaultDashboardUrl } from '../../server-stubs/mail/referrals/referrals-store.js';
import { maskedName } from '../../server-stubs/mail/referrals/leaderboard.js';
import { answered, mailForEachTest, startMail } from './identity-support.js';

const mail = mailForEachTest();

const dashboard = (user: 'free' | 'pro' | 'max' = 'max') => mail.session(`sess_test_${user}`);
const ids = { first: '8c7b6a5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d', connector: '9d8c7b6a-5f4e-4b3c-8d2e-1f0a9b8c7d6e', ambassador: '0e9d8c7b-6a5f-4c4d-9e3f-2a1b0c9d8e7f' };
const unknownId = '0f0e0d0c-0b0a-4909-8807-060504030201';

async function summary(client = dashboard()) {
  return answered(await client.GET('/referrals'), 200, '/referrals', 'get').data;
}

async function generate(client = dashboard(), body?: { source?: string }) {
  return answered(await client.POST('/referrals/generate', body === undefined ? {} : { body: body as never }), 200, '/referrals/generate', 'post');
}

async function leaderboard(client = dashboard()) {
  return answered(await client.GET('/referrals/leaderboard'), 200, '/referrals/leaderboard', 'get').data;
}

const claim = (body: unknown, client = dashboard()) => client.POST('/referrals/claim', body === undefined ? {} : { body: body as never });
const claims = async (client = dashboard()) => answered(await client.GET('/referrals/milestone-claims'), 200, '/referrals/milestone-claims', 'get').data;

/** Someone signs up through the user's link (and, optionally, activates a paid plan). */
function referee(code: string, email: string, converted = false) {
  const userId = `usr_${email.split('@')[0]}`;
  const record = mail.app.referrals.recordSignup(code, { userId, email });
  if (converted) mail.app.referrals.recordConversion(userId);
  return record;
}

describe('summary and seeds (DECISIONS mail-2)', () => {
  test('the Max user has a code, 3 converted and 1 pending referral, newest first', async () => {
    const data = await summary();
    expect(data).toMatchObject({ code: 'MAXUSER1', shareUrl: `${defaultDashboardUrl}/ref/MAXUSER1`, totalReferrals: 4, pendingReferrals: 1, convertedReferrals: 3, rewardedReferrals: 0 });
    expect(data.referrals.map((r: { status: string }) => r.status)).toEqual(['pending', 'converted', 'converted', 'converted']);
    const created = data.referrals.map((r: { createdAt: string }) => Date.parse(r.createdAt));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
    for (const r of data.referrals) expect(r.convertedAt === null).toBe(r.status === 'pending');
    expect(data.referrals.every((r: { rewardedAt: string | null }) => r.rewardedAt === null)).toBe(true);
  });

  test('the Free user (and the Pro user) have nothing: no code, no share link, zero counts', async () => {
    for (const user of ['free', 'pro'] as const) {
      expect(await summary(dashboard(user))).toEqual({ code: null, shareUrl: null, totalReferrals: 0, pendingReferrals: 0, convertedReferrals: 0, rewardedReferrals: 0, referrals: [] });
    }
  });
});

describe('generate', () => {
  test('creates the code on the first call and returns the same one after; the summary shows it', async () => {
    const first = await generate(dashboard('free'), { source: 'twitter' });
    expect(first.code).toMatch(/^[A-Z2-9]{8}$/);
    expect(first.shareUrl).toBe(`${defaultDashboardUrl}/ref/${first.code}`);
    expect(await generate(dashboard('free'))).toEqual(first);
    expect(await generate(dashboard('free'), { source: 'copy_link' })).toEqual(first);
    expect(await summary(dashboard('free'))).toMatchObject({ code: first.code, shareUrl: first.shareUrl, totalReferrals: 0 });
    expect((await generate(dashboard('pro'))).code).not.toBe(first.code);
    expect((await generate()).code).toBe('MAXUSER1');
  });

  test('a source outside the share sources, or invalid JSON: 400, and no code is made', async () => {
    const refused = answered(await dashboard('free').POST('/referrals/generate', { body: { source: 'myspace' } as never }), 400, '/referrals/generate', 'post');
    expect(refused).toMatchObject({ error: 'Validation failed', details: { fieldErrors: { source: expect.any(Array) } } });
    const response = await fetch(`${mail.baseUrl}/referrals/generate`, { method: 'POST', headers: { cookie: 'session=sess_test_free', 'content-type': 'application/json' }, body: '{' });
    expect([response.status, await response.json()]).toEqual([400, { success: false, error: 'Invalid JSON body' }]);
    expect((await summary(dashboard('free'))).code).toBeNull();
  });

  test('share links use DASHBOARD_URL (trailing slash dropped), default https://dashboard.platform.example', async () => {
    expect(dashboardUrlFromEnv({})).toBe('https://dashboard.platform.example');
    expect(dashboardUrlFromEnv({ DASHBOARD_URL: 'https://app.example.test/' })).toBe('https://app.example.test');
    const saved = process.env.DASHBOARD_URL;
    process.env.DASHBOARD_URL = 'https://dash.example.test/';
    const other = await startMail().finally(() => (saved === undefined ? delete process.env.DASHBOARD_URL : (process.env.DASHBOARD_URL = saved)));
    try {
      const made = await generate(other.session('sess_test_pro'));
      expect(made.shareUrl).toBe(`https://dash.example.test/ref/${made.code}`);
      expect(answered(await other.session('sess_test_max').GET('/referrals/nudge'), 200, '/referrals/nudge', 'get').data.url).toBe('https://dash.example.test/ref/MAXUSER1');
    } finally {
      await other.close();
    }
  });
});

describe('lifecycle: sign-up through the link, paid plan, reward', () => {
  test('a sign-up through the link is pending; a paid plan converts it; later conversions change nothing', async () => {
    const { code } = await generate(dashboard('pro'));
    mail.clock.advance(1000);
    const signedUp = referee(code.toLowerCase(), 'grace@example.org')!;
    expect(signedUp).toMatchObject({ referrerId: 'usr_pro', status: 'pending', source: 'direct' });
    let data = await summary(dashboard('pro'));
    expect(data).toMatchObject({ totalReferrals: 1, pendingReferrals: 1, convertedReferrals: 0 });
    expect(data.referrals[0]).toEqual({ id: signedUp.id, refereeEmail: 'grace@example.org', status: 'pending', source: 'direct', createdAt: new Date(mail.clock.now()).toISOString(), convertedAt: null, rewardedAt: null });
    mail.clock.advance(60_000);
    expect(mail.app.referrals.recordConversion('usr_grace')).toMatchObject({ status: 'converted' });
    expect(mail.app.referrals.recordConversion('usr_grace')).toBeUndefined();
    data = await summary(dashboard('pro'));
    expect(data).toMatchObject({ totalReferrals: 1, pendingReferrals: 0, convertedReferrals: 1 });
    expect(data.referrals[0].convertedAt).toBe(new Date(mail.clock.now()).toISOString());
  });

  test('the referee buying a paid plan (identity announces the change) converts the referral', async () => {
    const { code } = await generate(dashboard('pro'));
    mail.app.referrals.recordSignup(code, { userId: 'usr_free', email: 'free@example.com' });
    mail.app.identity.setPlan('usr_free', 'max');
    expect(await summary(dashboard('pro'))).toMatchObject({ pendingReferrals: 0, convertedReferrals: 1 });
  });

  test('nothing is recorded for an unknown code, a self-referral or a referee already referred; a user who signed up without a link converts nothing', async () => {
    const { code } = await generate(dashboard('pro'));
    expect(mail.app.referrals.recordSignup('NOSUCHCODE', { userId: 'usr_x', email: 'x@example.com' })).toBeUndefined();
    expect(mail.app.referrals.recordSignup(code, { userId: 'usr_pro', email: 'pro@example.com' })).toBeUndefined();
    expect(referee(code, 'ada@example.org')).toBeDefined();
    expect(referee('MAXUSER1', 'ada@example.org')).toBeUndefined();
    expect(mail.app.referrals.recordConversion('usr_never_referred')).toBeUndefined();
    expect((await summary(dashboard('pro'))).totalReferrals).toBe(1);
    expect((await summary()).totalReferrals).toBe(4);
  });

  test('pending referrals do not count toward a milestone; converted ones do', async () => {
    const { code } = await generate(dashboard('pro'));
    referee(code, 'alan@example.net');
    expect(answered(await claim({ milestone_id: ids.first }, dashboard('pro')), 422, '/referrals/claim', 'post').error).toBe('Milestone threshold not met');
    mail.app.referrals.recordConversion('usr_alan');
    expect(answered(await claim({ milestone_id: ids.first }, dashboard('pro')), 200, '/referrals/claim', 'post').data).toEqual({ milestoneName: 'First referral' });
  });
});

describe('milestones and claims', () => {
  test('milestones at 1, 5 and 10, ordered by referrals_required', async () => {
    const data = answered(await dashboard().GET('/referrals/milestones'), 200, '/referrals/milestones', 'get').data;
    expect(data.map((m: { id: string; referrals_required: number }) => [m.id, m.referrals_required])).toEqual([
      [ids.first, 1],
      [ids.connector, 5],
      [ids.ambassador, 10],
    ]);
  });

  test('a claim at 1 succeeds (the converted referrals become rewarded), a second claim 409, at 5 422 (DECISIONS mail-2)', async () => {
    expect(await claims()).toEqual([]);
    mail.clock.advance(1000);
    expect(answered(await claim({ milestone_id: ids.first }), 200, '/referrals/claim', 'post')).toEqual({ success: true, data: { milestoneName: 'First referral' } });
    const at = new Date(mail.clock.now()).toISOString();
    expect(await claims()).toEqual([{ milestone_id: ids.first, claimed_at: at, reward_applied: true }]);
    const data = await summary();
    expect(data).toMatchObject({ totalReferrals: 4, pendingReferrals: 1, convertedReferrals: 0, rewardedReferrals: 3 });
    expect(data.referrals.filter((r: { status: string }) => r.status === 'rewarded').every((r: { rewardedAt: string }) => r.rewardedAt === at)).toBe(true);

    mail.clock.advance(1000);
    expect(answered(await claim({ milestone_id: ids.first }), 409, '/referrals/claim', 'post')).toEqual({ success: false, error: 'Milestone already claimed' });
    expect(answered(await claim({ milestone_id: ids.connector }), 422, '/referrals/claim', 'post')).toEqual({ success: false, error: 'Milestone threshold not met' });
    expect(await claims()).toEqual([{ milestone_id: ids.first, claimed_at: at, reward_applied: true }]);
    expect(await summary()).toEqual(data);
  });

  test('rewarded referrals keep counting: with 5 the next milestone can be claimed', async () => {
    answered(await claim({ milestone_id: ids.first }), 200, '/referrals/claim', 'post');
    referee('MAXUSER1', 'new1@example.com', true);
    answered(await claim({ milestone_id: ids.connector }), 422, '/referrals/claim', 'post');
    referee('MAXUSER1', 'new2@example.com', true);
    expect(answered(await claim({ milestone_id: ids.connector }), 200, '/referrals/claim', 'post').data.milestoneName).toBe('Connector');
    expect((await claims()).map((c: { milestone_id: string }) => c.milestone_id)).toEqual([ids.first, ids.connector]);
  });

  test('claims are per user: the Free user cannot claim (422) and sees none of Max\'s claims', async () => {
    answered(await claim({ milestone_id: ids.first }), 200, '/referrals/claim', 'post');
    answered(await claim({ milestone_id: ids.first }, dashboard('free')), 422, '/referrals/claim', 'post');
    expect(await claims(dashboard('free'))).toEqual([]);
  });

  test('milestone_id missing, empty or no body: 400 "milestone_id is required"; unknown: 404; not a string or unknown fields: 400 Validation failed', async () => {
    for (const body of [{}, { milestone_id: '' }, undefined]) {
      expect(answered(await claim(body), 400, '/referrals/claim', 'post'), JSON.stringify(body)).toEqual({ success: false, error: 'milestone_id is required' });
    }
    expect(answered(await claim({ milestone_id: unknownId }), 404, '/referrals/claim', 'post')).toEqual({ success: false, error: 'Milestone not found' });
    expect(answered(await claim({ milestone_id: 1 }), 400, '/referrals/claim', 'post').error).toBe('Validation failed');
    const response = await fetch(`${mail.baseUrl}/referrals/claim`, { method: 'POST', headers: { cookie: 'session=sess_test_max', 'content-type': 'application/json' }, body: '{"milestone_id":' });
    expect([response.status, await response.json()]).toEqual([400, { success: false, error: 'Invalid JSON body' }]);
    expect(await claims()).toEqual([]);
  });
});

describe('leaderboard', () => {
  test('from the Max user: first, own row unmasked with the user id; myRank 1', async () => {
    const data = await leaderboard();
    expect(data).toEqual({ leaderboard: [{ rank: 1, userId: 'usr_max', displayName: 'Max User', isSelf: true, totalReferrals: 4, activeReferrals: 3 }], myRank: 1 });
  });

  test('from the Free user: others masked without ids; myRank null while the user has no referral', async () => {
    const data = await leaderboard(dashboard('free'));
    expect(data).toEqual({ leaderboard: [{ rank: 1, userId: null, displayName: 'M***x U.', isSelf: false, totalReferrals: 4, activeReferrals: 3 }], myRank: null });
  });

  test('ranked by active referrals, then all referrals; each caller sees only their own row unmasked', async () => {
    const { code } = await generate(dashboard('pro'));
    for (let i = 0; i < 5; i++) referee(code, `p${i}@example.com`, i < 4);
    const pro = await leaderboard(dashboard('pro'));
    expect(pro.myRank).toBe(1);
    expect(pro.leaderboard.map((r: { displayName: string; isSelf: boolean; userId: string | null; activeReferrals: number }) => [r.displayName, r.isSelf, r.userId, r.activeReferrals])).toEqual([
      ['Pro User', true, 'usr_pro', 4],
      ['M***x U.', false, null, 3],
    ]);
    expect((await leaderboard()).myRank).toBe(2);
  });

  test('at most 50 rows; myRank is the caller\'s place even below them', async () => {
    for (let i = 0; i < 60; i++) {
      const code = mail.app.referrals.ensureCode(`usr_ref${i}`);
      referee(code, `r${i}a@example.com`, true);
      referee(code, `r${i}b@example.com`, true);
    }
    const { code } = await generate(dashboard('free'));
    referee(code, 'late@example.com');
    const data = await leaderboard(dashboard('free'));
    expect(data.leaderboard).toHaveLength(50);
    expect(data.leaderboard.map((r: { rank: number }) => r.rank)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(data.leaderboard.some((r: { isSelf: boolean }) => r.isSelf)).toBe(false);
    expect(data.myRank).toBe(62);
    expect((await leaderboard()).myRank).toBe(1);
  });

  test('masking keeps the first and last letter of the first name and the initial of the last', () => {
    expect(maskedName('Max User')).toBe('M***x U.');
    expect(maskedName('Ada King Lovelace')).toBe('A***a L.');
    expect(maskedName('Jo')).toBe('J***o');
    expect(maskedName('Q')).toBe('Q***');
  });
});

describe('nudge and log-share', () => {
  test('the nudge carries the code, link and count, makes the code when there is none, and sends no e-mail', async () => {
    const before = mail.app.outbox.all('usr_max').length + mail.app.outbox.all('usr_free').length;
    const max = answered(await dashboard().GET('/referrals/nudge'), 200, '/referrals/nudge', 'get').data;
    expect(max).toMatchObject({ code: 'MAXUSER1', url: `${defaultDashboardUrl}/ref/MAXUSER1`, referralCount: 4 });
    expect(max.nudgeMessage).toContain('4 referrals');
    expect(max.nudgeMessage).toContain('First referral');
    const free = answered(await dashboard('free').GET('/referrals/nudge'), 200, '/referrals/nudge', 'get').data;
    expect(free.referralCount).toBe(0);
    expect(free.code).toBe((await summary(dashboard('free'))).code);
    expect(mail.app.outbox.all('usr_max').length + mail.app.outbox.all('usr_free').length).toBe(before);
  });

  test('log-share records the share (default direct) and changes no count', async () => {
    const before = await summary();
    const board = await leaderboard();
    for (const body of [{ source: 'linkedin' }, {}, undefined]) {
      expect(answered(await dashboard().POST('/referrals/log-share', body === undefined ? {} : { body: body as never }), 200, '/referrals/log-share', 'post')).toEqual({ success: true });
    }
    expect(mail.app.referrals.sharesOf('usr_max').map((s) => s.source)).toEqual(['linkedin', 'direct', 'direct']);
    expect(await summary()).toEqual(before);
    expect(await leaderboard()).toEqual(board);
    answered(await dashboard().POST('/referrals/log-share', { body: { source: 'fax' } as never }), 400, '/referrals/log-share', 'post');
    expect(mail.app.referrals.sharesOf('usr_max')).toHaveLength(3);
  });
});

describe('session only', () => {
  test('an API key, no credentials or an unknown session: 401 on every referral route, nothing changes', async () => {
    const calls = (client: ReturnType<typeof mail.anonymous>) => [
      ['/referrals', 'get', client.GET('/referrals')],
      ['/referrals/generate', 'post', client.POST('/referrals/generate', { body: {} })],
      ['/referrals/leaderboard', 'get', client.GET('/referrals/leaderboard')],
      ['/referrals/milestones', 'get', client.GET('/referrals/milestones')],
      ['/referrals/claim', 'post', client.POST('/referrals/claim', { body: { milestone_id: ids.first } })],
      ['/referrals/milestone-claims', 'get', client.GET('/referrals/milestone-claims')],
      ['/referrals/nudge', 'get', client.GET('/referrals/nudge')],
      ['/referrals/log-share', 'post', client.POST('/referrals/log-share', { body: {} })],
    ] as const;
    for (const client of [mail.key('msk_test_max'), mail.anonymous(), mail.session('sess_nobody')]) {
      for (const [path, method, call] of calls(client)) answered(await call, 401, path, method);
    }
    expect(await claims()).toEqual([]);
    expect(mail.app.referrals.sharesOf('usr_max')).toEqual([]);
  });
});
