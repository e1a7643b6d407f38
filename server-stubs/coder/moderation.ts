/**
 * The moderation stand-in: whole words from a short list per category flag a text, so results are
 * deterministic and a test can choose what gets flagged.
 */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

const WORDS: Partial<Record<ModerationCategory, readonly string[]>> = {
  harassment: ['idiot', 'moron', 'loser'],
  'harassment/threatening': ['hunt you down'],
  hate: ['subhuman'],
  illicit: ['steal', 'counterfeit', 'launder'],
  'illicit/violent': ['build a bomb'],
  'self-harm': ['hurt myself'],
  sexual: ['explicit sex'],
  violence: ['kill', 'murder', 'stab'],
  'violence/graphic': ['gore', 'dismember'],
};

const FLAGGED_SCORE = 0.9;
const CLEAR_SCORE = 0.0001;

export interface ModerationResult {
  flagged: boolean;
  categories: Record<ModerationCategory, boolean>;
  category_scores: Record<ModerationCategory, number>;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function moderate(text: string): ModerationResult {
  const categories = {} as Record<ModerationCategory, boolean>;
  const category_scores = {} as Record<ModerationCategory, number>;
  for (const category of MODERATION_CATEGORIES) {
    const hit = (WORDS[category] ?? []).some((word) => new RegExp(`\\b${escape(word)}\\b`, 'i').test(text));
    categories[category] = hit;
    category_scores[category] = hit ? FLAGGED_SCORE : CLEAR_SCORE;
  }
  return { flagged: Object.values(categories).some(Boolean), categories, category_scores };
}
