import { createHash } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';

export type SubjectLineSuggestion = components['schemas']['SubjectLineSuggestion'];
export type Tone = NonNullable<components['schemas']['GenerateSubjectLinesFromTopicRequest']['tone']>;

/** What a generator is asked: the email's body or a topic, a tone (or none: the generator picks), how many. */
export interface SubjectLineBrief {
  source: 'content' | 'topic';
  text: string;
  tone?: Tone;
  count: number;
}

/**
 * Where subject lines come from. The stub's default is the local generator below (no network, no
 * model, the same brief always gives the same suggestions); a real deployment puts a model behind
 * this interface.
 */
export interface SubjectLineGenerator {
  suggest(brief: SubjectLineBrief): Promise<SubjectLineSuggestion[]>;
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Visible text of an HTML or plain body, with its first heading (the likeliest subject) when it has one. */
function readBody(content: string): { heading?: string; text: string } {
  const withoutCode = content.replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  const heading = /<(h[1-3]|title)\b[^>]*>([\s\S]*?)<\/\1\s*>/i.exec(content)?.[2];
  const plain = (html: string) =>
    html
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(#39|[a-z]+);/gi, (m, name: string) => entities[name.toLowerCase()] ?? m)
      .replace(/\s+/g, ' ')
      .trim();
  const headingText = heading === undefined ? undefined : plain(heading);
  return { heading: headingText || undefined, text: plain(withoutCode) };
}

/** At most `max` characters, cut at a word boundary, without trailing punctuation. */
function clipped(text: string, max: number): string {
  const cut = text.length <= max ? text : text.slice(0, max + 1).replace(/\s+\S*$/, '');
  return cut.replace(/[\s.,;:!?-]+$/, '');
}

/** The short phrase the suggestions are built around: a heading, else the first sentence or clause. */
function subjectOf(brief: SubjectLineBrief): string {
  const { heading, text } = brief.source === 'content' ? readBody(brief.text) : { heading: undefined, text: brief.text.replace(/\s+/g, ' ').trim() };
  const first = heading ?? text.split(/(?<=[.!?])\s|[,;:]\s/)[0] ?? text;
  return clipped(first, 60) || clipped(text, 60) || 'our latest news';
}

const offerPattern = /\b(\d{1,3}\s?%\s?off|free shipping|buy one,? get one(?: free)?)\b/i;

const urgentWords = /\b(last chance|today only|ends (?:today|tonight|soon|sunday|monday|tuesday|wednesday|thursday|friday|saturday)|hurry|deadline|final (?:hours|day|call)|limited time)\b/i;
const professionalWords = /\b(report|update|invoice|announcement|webinar|quarterly|release notes|policy|agenda|meeting)\b/i;

/** The tone the text reads in, when the caller names none. */
function inferredTone(text: string): Tone {
  if (urgentWords.test(text)) return 'urgent';
  if (professionalWords.test(text)) return 'professional';
  if (/!/.test(text)) return 'playful';
  return 'friendly';
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Ten or more wordings per tone, so every count up to 10 gets distinct lines; `{s}` is the subject, `{S}` capitalized. */
const wordings: Record<Tone, string[]> = {
  professional: ['{S}', '{S}: what you need to know', 'Update: {s}', '{S}: key points inside', 'An overview of {s}', '{S} (summary)', 'Your briefing on {s}', 'Now available: {s}', '{S}: the details', 'Important information about {s}'],
  friendly: ['{S}', 'We thought you would like this: {s}', '{S} (just for you)', 'Good news: {s}', 'Have you seen this? {S}', 'A little something: {s}', '{S}, picked for you', 'Hi! {S}', 'Something new: {s}', 'You are invited: {s}'],
  casual: ['{S}', 'So, about {s}', '{S}. Take a look', 'Quick one: {s}', 'Heads up: {s}', '{S}, no big deal (it is a big deal)', 'FYI: {s}', 'Psst, {s}', 'This is for you: {s}', 'Got a minute? {S}'],
  urgent: ['Last chance: {s}', '{S}: ends soon', "Don't miss out: {s}", 'Hurry! {S}', 'Final hours: {s}', '{S} (today only)', 'Time is running out: {s}', 'Act now: {s}', 'Ending tonight: {s}', 'Only a few hours left: {s}'],
  playful: ['{S} 🎉', 'Guess what? {S}', 'Oh hello, {s}', '{S}! You are going to love this', 'Drumroll please: {s}', 'Plot twist: {s}', 'Your inbox just got better: {s}', 'Ta-da! {S}', 'Spoiler alert: {s}', 'Fun fact: {s}'],
};

const offerWordings: Record<Tone, string[]> = {
  professional: ['{O} on {s}', '{S}: {o} for customers'],
  friendly: ['{O}, just for you', 'Enjoy {o}: {s}'],
  casual: ['{O}. Yes, really', '{S}: {o}'],
  urgent: ['{O} ends soon', 'Last chance for {o}'],
  playful: ['{O}? Yes please!', 'Surprise! {O}'],
};

/** Designed baseline open rates per tone, shifted by length, offer and question form. */
const toneBase: Record<Tone, number> = { professional: 0.24, friendly: 0.27, casual: 0.26, urgent: 0.29, playful: 0.25 };

function predictedOpenRate(subject: string, tone: Tone, hasOffer: boolean): number {
  const length = [...subject].length;
  const lengthEffect = length >= 28 && length <= 50 ? 0.04 : length > 70 ? -0.05 : length < 15 ? -0.02 : 0;
  const offerEffect = hasOffer && offerPattern.test(subject) ? 0.03 : 0;
  const questionEffect = subject.includes('?') ? 0.015 : 0;
  // A stable per-wording spread (a hash, not a random number), so equal briefs give equal rates.
  const spread = (createHash('sha256').update(subject).digest().readUInt16BE(0) / 0xffff - 0.5) * 0.03;
  const rate = toneBase[tone] + lengthEffect + offerEffect + questionEffect + spread;
  return Math.round(Math.min(0.6, Math.max(0.05, rate)) * 100) / 100;
}

/** The default generator: wordings of the tone around the brief's subject, scored and best first. */
export const localSubjectLines: SubjectLineGenerator = {
  async suggest(brief) {
    const subject = subjectOf(brief);
    const tone = brief.tone ?? inferredTone(brief.text);
    const offer = offerPattern.exec(brief.text)?.[1];
    const fill = (wording: string) =>
      wording
        .replaceAll('{S}', capitalized(subject))
        .replaceAll('{s}', subject)
        .replaceAll('{O}', capitalized(offer ?? ''))
        .replaceAll('{o}', offer ?? '');
    const lines = [...new Set([...(offer ? offerWordings[tone] : []), ...wordings[tone]].map(fill))];
    return lines
      .map((line, order) => ({ subject: line, predicted_open_rate: predictedOpenRate(line, tone, offer !== undefined), order }))
      .sort((a, b) => b.predicted_open_rate - a.predicted_open_rate || a.order - b.order)
      .slice(0, brief.count)
      .map(({ subject: line, predicted_open_rate }) => ({ subject: line, predicted_open_rate }));
  },
};
