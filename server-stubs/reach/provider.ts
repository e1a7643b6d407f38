import { readFileSync } from 'node:fs';
import type { Company } from '../../generated/schemas/reach/types.gen.js';

/**
 * The external lead-data provider (DECISIONS reach-6). The default serves the committed fixture
 * dataset (fixtures/companies.json, made by scripts/generate-reach-fixtures.ts) so answers are the
 * same on every run; a real provider client can take its place through the app's `provider` option.
 */
export interface LeadProvider {
  /** People matching a natural-language query, best first. */
  search(query: string, limit: number): Promise<ProviderPerson[]>;
  discover(filters: DiscoverFilters): Promise<Company[]>;
  verify(email: string): Promise<{ status: 'valid' | 'risky' | 'invalid'; score: number }>;
  enrich(email: string): Promise<{ linkedinUrl: string; phone: string }>;
  /** Lists live at the provider: list reads and writes need it to answer. */
  ping(): Promise<void>;
}

export interface ProviderPerson {
  name: string;
  title: string;
  email: string;
  company: string;
  domain: string;
  industry: string;
  location: string;
  headcount: number;
}

export interface DiscoverFilters {
  industry?: string;
  location?: string;
  headcount?: string;
  technology?: string;
  includeEmails: boolean;
  limit: number;
}

/** The provider could not be reached or refused: the route answers 502. */
export class ProviderUnavailable extends Error {}

const companies = JSON.parse(readFileSync(new URL('./fixtures/companies.json', import.meta.url), 'utf8')) as Company[];

const STOP_WORDS = new Set(['the', 'and', 'for', 'with', 'from', 'that', 'who', 'work', 'working', 'companies', 'company', 'people', 'leads', 'based']);

/** FNV-1a: a stable number per string, so verification and scoring give the same answer each run. */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

const BANDS: Record<string, [number, number]> = { '1-10': [1, 10], '11-50': [11, 50], '51-200': [51, 200], '201-1000': [201, 1000], '1000+': [1001, Infinity] };

function fixtureProvider(): LeadProvider {
  const people: Array<ProviderPerson & { haystack: string }> = companies.flatMap((c) =>
    c.contacts.map((p) => ({
      ...p,
      company: c.name,
      domain: c.domain,
      industry: c.industry,
      location: c.location,
      headcount: c.headcount,
      haystack: [p.name, p.title, c.name, c.industry, c.location, ...c.technologies].join(' ').toLowerCase(),
    })),
  );
  return {
    async search(query, limit) {
      const terms = [...new Set(query.toLowerCase().split(/[^a-z0-9+-]+/))].filter((t) => t.length >= 3 && !STOP_WORDS.has(t));
      const stems = terms.map((t) => (t.length > 4 && t.endsWith('s') ? t.slice(0, -1) : t));
      return people
        .map((p) => ({ p, hits: stems.filter((s) => p.haystack.includes(s)).length }))
        .filter((m) => m.hits > 0)
        .sort((a, b) => b.hits - a.hits || a.p.email.localeCompare(b.p.email))
        .slice(0, limit)
        .map(({ p: { haystack: _haystack, ...person } }) => person);
    },
    async discover(f) {
      const has = (value: string, wanted?: string) => wanted === undefined || value.toLowerCase().includes(wanted.toLowerCase());
      const band = f.headcount ? BANDS[f.headcount] : undefined;
      return companies
        .filter((c) => has(c.industry, f.industry) && has(c.location, f.location))
        .filter((c) => !band || (c.headcount >= band[0] && c.headcount <= band[1]))
        .filter((c) => !f.technology || c.technologies.includes(f.technology.toLowerCase()))
        .slice(0, f.limit)
        .map((c) => ({ ...c, contacts: f.includeEmails ? c.contacts : [] }));
    },
    async verify(email) {
      const score = stableHash(`verify:${email}`) % 101;
      return { status: score >= 70 ? 'valid' : score >= 40 ? 'risky' : 'invalid', score };
    },
    async enrich(email) {
      const local = email.split('@')[0]!.replace(/\./g, '-');
      return { linkedinUrl: `https://www.linkedin.com/in/${local}`, phone: `+1 555 ${String(stableHash(email) % 10_000).padStart(4, '0')}` };
    },
    async ping() {},
  };
}

/** A provider that can be switched down at run time (`REACH_PROVIDER=down`, the app option, or tests). */
export interface SwitchableProvider extends LeadProvider {
  down: boolean;
}

export function switchableProvider(inner: LeadProvider = fixtureProvider(), down = false): SwitchableProvider {
  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    if (state.down) throw new ProviderUnavailable('The lead-data provider is unreachable; retry later');
    return call();
  };
  const state: SwitchableProvider = {
    down,
    search: (q, l) => guard(() => inner.search(q, l)),
    discover: (f) => guard(() => inner.discover(f)),
    verify: (e) => guard(() => inner.verify(e)),
    enrich: (e) => guard(() => inner.enrich(e)),
    ping: () => guard(() => inner.ping()),
  };
  return state;
}
