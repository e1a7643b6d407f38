/**
 * AI subject lines through HTTP (issue 14, Pro plan): the plan gate (403 with `feature`), a
 * deterministic local generator behind an adapter (same brief, same answer; no network), `count`
 * (default 5, 1-10), `tone`, HTML content read as text, offers kept, best first; exactly one of
 * `content` or `topic` (400), scopes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { localSubjectLines } from '../../server-stubs/mail/infrastructure/subject-lines.js';
import { answered, startMail, type MailStub } from './identity-support.js';

let mail: MailStub;
beforeAll(async () => {
  mail = await startMail();
});
afterAll(() => mail.close());
// The AI routes share a small rate bucket: each test starts with a fresh one.
beforeEach(() => mail.app.reset());

const pro = () => mail.key('msk_test_pro');
const path = '/v1/ai/subject-lines';
type Suggestion = { subject: string; predicted_open_rate?: number };

async function suggest(body: Record<string, unknown>, client = pro()): Promise<Suggestion[]> {
  return answered(await client.POST(path, { body: body as never }), 200, path, 'post').data.suggestions;
}

describe('the Pro plan gate', () => {
  test('Free: 403 with feature and required_plan; Pro and Max: 200', async () => {
    const refused = answered(await mail.key('msk_test_free').POST(path, { body: { topic: 'Spring sale' } }), 403, path, 'post');
    expect(refused).toMatchObject({ success: false, feature: 'ai_subject_lines', required_plan: 'pro' });
    expect(await suggest({ topic: 'Spring sale' })).toHaveLength(5);
    expect(await suggest({ topic: 'Spring sale' }, mail.key('msk_test_max'))).toHaveLength(5);
  });

  test('a token without the write scope: 403 (scope, no feature); no key: 401', async () => {
    expect(answered(await mail.key('msk_test_oauth_send').POST(path, { body: { topic: 'x' } }), 403, path, 'post')).not.toHaveProperty('feature');
    answered(await mail.anonymous().POST(path, { body: { topic: 'x' } }), 401, path, 'post');
  });
});

describe('suggestions', () => {
  test('deterministic: the same brief gives the same suggestions, through HTTP and from the adapter', async () => {
    const body = { topic: 'Spring sale, 20% off all new arrivals', tone: 'friendly', count: 7 } as const;
    const first = await suggest(body);
    expect(await suggest(body)).toEqual(first);
    expect(await localSubjectLines.suggest({ source: 'topic', text: body.topic, tone: body.tone, count: 7 })).toEqual(first);
  });

  test('count: default 5, 1 and 10 honoured, all distinct, best first by predicted open rate', async () => {
    for (const count of [1, 10]) {
      const lines = await suggest({ topic: 'Our new winter collection', count });
      expect(lines).toHaveLength(count);
      expect(new Set(lines.map((l) => l.subject)).size).toBe(count);
      const rates = lines.map((l) => l.predicted_open_rate!);
      expect(rates).toEqual([...rates].sort((a, b) => b - a));
      expect(rates.every((r) => r >= 0 && r <= 1)).toBe(true);
    }
    for (const tone of ['professional', 'friendly', 'casual', 'urgent', 'playful']) {
      expect(await suggest({ topic: 'x', tone, count: 10 }), tone).toHaveLength(10);
    }
  });

  test('the topic and its offer appear; tones give different wordings', async () => {
    const urgent = await suggest({ topic: 'Spring sale, 20% off all new arrivals', tone: 'urgent', count: 10 });
    const professional = await suggest({ topic: 'Spring sale, 20% off all new arrivals', tone: 'professional', count: 10 });
    expect(urgent.some((l) => /20% off/i.test(l.subject))).toBe(true);
    expect(urgent.filter((l) => /spring sale/i.test(l.subject)).length).toBeGreaterThan(5);
    expect(urgent.map((l) => l.subject)).not.toEqual(professional.map((l) => l.subject));
  });

  test('HTML content: the heading is the subject, no markup or entities leak', async () => {
    const lines = await suggest({ content: '<style>h1{color:red}</style><h1>Spring is here &amp; so are we</h1><p>Twenty new pieces, 20% off until Sunday.</p>', count: 10 });
    expect(lines.some((l) => l.subject.includes('Spring is here & so are we'))).toBe(true);
    expect(lines.every((l) => !/[<>]|&amp;|color:red/.test(l.subject))).toBe(true);
  });

  test('no tone: inferred from the text (urgent words give urgent wordings)', async () => {
    const inferred = await suggest({ topic: 'Last chance: the sale ends tonight', count: 10 });
    const urgent = await suggest({ topic: 'Last chance: the sale ends tonight', tone: 'urgent', count: 10 });
    expect(inferred).toEqual(urgent);
  });
});

describe('validation', () => {
  test('both or neither of content and topic, count outside 1-10, an unknown tone, an empty topic: 400', async () => {
    for (const body of [{ content: 'a', topic: 'b' }, {}, { tone: 'friendly' }, { topic: 'x', count: 0 }, { topic: 'x', count: 11 }, { topic: 'x', tone: 'angry' }, { topic: '' }, { topic: 'x'.repeat(501) }]) {
      const refused = answered(await pro().POST(path, { body: body as never }), 400, path, 'post');
      expect(refused.error, JSON.stringify(body)).toBe('Validation failed');
    }
  });
});
