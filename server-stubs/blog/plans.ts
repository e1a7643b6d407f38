import type { components } from '../../generated/blog/types.gen.js';

export type PlanSlug = 'free' | 'pro' | 'business';
export type MeteredFeature = 'mcp_write_actions' | 'ai_assistant_prompts' | 'newsletter_subscribers';
/** Features a plan has or lacks outright (a 402 when it lacks them). */
export type GatedFeature = 'team_members';
export type PlanFeatures = components['schemas']['PlanFeatures'];

/** How a metered item is counted: per calendar month (UTC) or as a running total. */
export const meteredItems: Record<MeteredFeature, { label: string; period: 'month' | 'total' }> = {
  mcp_write_actions: { label: 'Automation write actions', period: 'month' },
  ai_assistant_prompts: { label: 'AI writing-assistant prompts', period: 'month' },
  newsletter_subscribers: { label: 'Newsletter subscribers', period: 'total' },
};

export const gatedItems: Record<GatedFeature, { label: string }> = {
  team_members: { label: 'Team members' },
};

export const TRIAL_DAYS = 7 as const;
export const PRICING_URL = 'https://blog.example/pricing';

const unlimitedEverywhere: PlanFeatures['unlimited'] = ['hand_written_articles', 'page_views', 'readers', 'drafts'];

interface Plan {
  slug: PlanSlug;
  name: 'Free' | 'Pro' | 'Business';
  /** US dollars per month (designed: the document names `price` only) */
  price: number;
  /** null: unlimited */
  allowances: Record<MeteredFeature, number | null>;
  features: PlanFeatures;
}

/** The published plan table and feature matrix, cheapest first. */
export const plans: readonly Plan[] = [
  {
    slug: 'free',
    name: 'Free',
    price: 0,
    allowances: { mcp_write_actions: 20, ai_assistant_prompts: 25, newsletter_subscribers: 500 },
    features: {
      rest_api: true,
      tool_client_access: true,
      custom_domains: 'none',
      ai_citation_tracking: false,
      read_paid_content: false,
      creator_revenue_share_percent: 75,
      team_members: false,
      white_label_branding: false,
      unlimited: unlimitedEverywhere,
    },
  },
  {
    slug: 'pro',
    name: 'Pro',
    price: 9,
    allowances: { mcp_write_actions: 200, ai_assistant_prompts: 100, newsletter_subscribers: 10_000 },
    features: {
      rest_api: true,
      tool_client_access: true,
      custom_domains: 'one',
      ai_citation_tracking: true,
      read_paid_content: true,
      creator_revenue_share_percent: 80,
      team_members: false,
      white_label_branding: false,
      unlimited: unlimitedEverywhere,
    },
  },
  {
    slug: 'business',
    name: 'Business',
    price: 29,
    allowances: { mcp_write_actions: null, ai_assistant_prompts: 500, newsletter_subscribers: null },
    features: {
      rest_api: true,
      tool_client_access: true,
      custom_domains: 'multiple',
      ai_citation_tracking: true,
      read_paid_content: true,
      creator_revenue_share_percent: 80,
      team_members: true,
      white_label_branding: true,
      unlimited: unlimitedEverywhere,
    },
  },
];

export function plan(slug: PlanSlug): Plan {
  return plans.find((p) => p.slug === slug)!;
}

export function planSummary(p: Plan) {
  return { slug: p.slug, name: p.name, price: p.price, url: `${PRICING_URL}?plan=${p.slug}` };
}

const more = (a: number | null, b: number | null) => a === null ? b !== null : b !== null && a > b;

/** The plans that offer more of a feature than `current`, cheapest first: where an upgrade helps. */
export function plansWithMore(current: Plan, feature: MeteredFeature | GatedFeature) {
  return plans.filter((p) =>
    feature === 'team_members' ? p.features.team_members && !current.features.team_members : more(p.allowances[feature], current.allowances[feature]),
  );
}
