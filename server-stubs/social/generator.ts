import { createHash } from 'node:crypto';
import type { components } from '../../generated/social/types.gen.js';

type Platform = components['schemas']['Platform'];
type Tone = components['schemas']['Tone'];

export interface GenerationRequest {
  /** what the posts are about: the topic, or the prompt when no topic was given */
  subject: string;
  platform: Platform;
  tone: Tone;
  count: number;
  /** the platform's character limit: every text must fit */
  maxLength: number;
}

/**
 * Writes post texts. The default is a local, deterministic template writer so the stub works
 * offline and tests can pin its output; a real model slots in behind the same interface
 * (`createSocialApp({generator})`). Texts beyond the limit are cut by the caller.
 */
export interface PostGenerator {
  write(request: GenerationRequest): string[] | Promise<string[]>;
}

/** Five openings per tone, so up to five variants of one request never repeat. */
const templates: Record<Tone, string[]> = {
  professional: [
    '{s}: what we changed this quarter and what it taught us.',
    'Three lessons on {s} from our team, and the one metric we now track.',
    'A practical checklist for {s}, drawn from a year of doing it.',
    '{s} done well saves weeks. Here is the approach we use.',
    'How we approach {s}: the decisions, the trade-offs, the results.',
  ],
  casual: [
    'Quick one about {s}: we tried a thing and it kind of worked.',
    'So, {s}. Here is what we learned the hard way.',
    'Real talk on {s}, no slides needed.',
    'Been thinking about {s} all week. Some notes.',
    '{s}? Yep, we have opinions. Here they are.',
  ],
  witty: [
    '{s}: because "we will figure it out later" is not a strategy.',
    'We asked the coffee machine about {s}. It had better ideas than our roadmap.',
    '{s}, explained without a single buzzword. Almost.',
    'Plot twist: {s} is easier than the meeting about {s}.',
    'Our {s} playbook fits on a sticky note. A large one.',
  ],
  inspirational: [
    'Every great team gets {s} wrong before it gets it right. Keep going.',
    '{s} is a chance to build something people remember.',
    'Small steps in {s} add up to big changes. Start today.',
    'The best time to invest in {s} was yesterday. The next best is now.',
    '{s}: progress over perfection, every single week.',
  ],
  informative: [
    '{s} in brief: the facts, the numbers, and what they mean for you.',
    'Five things to know about {s} before you start.',
    '{s}: a short guide with the sources we trust.',
    'What changed in {s} this year, in plain words.',
    'The state of {s}: key figures and how to read them.',
  ],
};

/** A closing line per tone, added where the platform leaves room for it. */
const closings: Record<Tone, string> = {
  professional: 'What has worked for your team?',
  casual: 'Curious what you think.',
  witty: 'Send help. Or snacks.',
  inspirational: 'Your next step starts now.',
  informative: 'Full breakdown in the comments.',
};

function hashtag(subject: string): string {
  const words = subject.match(/[\p{L}\p{N}]+/gu) ?? [];
  const tag = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('').slice(0, 30);
  return tag ? `#${tag}` : '';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Cuts a text to `max` characters (code points), ending in an ellipsis when cut. */
export function fitTo(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

export const templateGenerator: PostGenerator = {
  write({ subject, platform, tone, count, maxLength }) {
    const offset = createHash('sha256').update(`${subject}|${platform}`).digest()[0]! % templates[tone].length;
    const roomy = maxLength >= 500;
    const tag = hashtag(subject);
    return Array.from({ length: count }, (_, i) => {
      const template = templates[tone][(offset + i) % templates[tone].length]!;
      const body = capitalize(template.replaceAll('{s}', subject));
      const text = [body, roomy ? closings[tone] : '', tag].filter(Boolean).join(' ');
      if ([...text].length <= maxLength) return text;
      // Too long for the platform: the subject gives way, the voice stays.
      return fitTo(capitalize(template.replaceAll('{s}', fitTo(subject, 60))), maxLength);
    });
  },
};
