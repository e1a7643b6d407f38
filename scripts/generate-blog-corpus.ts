/**
 * Writes server-stubs/blog/corpus/corpus.json: the published articles, their creators' profiles and
 * the tags the blog stub searches. Deterministic (a seeded PRNG, no network, no clock): the same
 * script always writes the same file, so the committed JSON only changes when this script does.
 * Run: `npx tsx scripts/generate-blog-corpus.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './lib/prng.js';

const SITE = 'https://blog.example';
const CDN = 'https://cdn.blog.example';
const ARTICLES = 320;

const { random, pick } = seededRandom(20260115);
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
function sample<T>(list: readonly T[], count: number): T[] {
  const pool = [...list];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

// Topics: a tag, the nouns an article about it talks about, and the tags it is often paired with.
const TOPICS: ReadonlyArray<{ tag: string; subjects: string[]; related: string[] }> = [
  { tag: 'typescript', subjects: ['generics', 'type narrowing', 'strict mode', 'declaration files', 'mapped types'], related: ['javascript', 'tooling'] },
  { tag: 'javascript', subjects: ['closures', 'promises', 'event loop', 'modules', 'iterators'], related: ['typescript', 'web-performance'] },
  { tag: 'rust', subjects: ['ownership', 'lifetimes', 'async runtimes', 'error handling', 'traits'], related: ['systems', 'performance'] },
  { tag: 'python', subjects: ['virtual environments', 'type hints', 'asyncio', 'packaging', 'data classes'], related: ['data-science', 'tooling'] },
  { tag: 'go', subjects: ['goroutines', 'channels', 'interfaces', 'modules', 'profiling'], related: ['systems', 'backend'] },
  { tag: 'web-performance', subjects: ['core web vitals', 'image loading', 'caching headers', 'bundle size', 'font loading'], related: ['javascript', 'css'] },
  { tag: 'css', subjects: ['container queries', 'grid layouts', 'custom properties', 'cascade layers', 'animations'], related: ['design', 'web-performance'] },
  { tag: 'design', subjects: ['typography', 'color systems', 'design tokens', 'accessibility audits', 'prototyping'], related: ['css', 'accessibility'] },
  { tag: 'accessibility', subjects: ['screen readers', 'focus management', 'color contrast', 'ARIA roles', 'keyboard navigation'], related: ['design', 'css'] },
  { tag: 'backend', subjects: ['rate limiting', 'idempotency keys', 'database migrations', 'queues', 'caching'], related: ['databases', 'api-design'] },
  { tag: 'api-design', subjects: ['pagination', 'versioning', 'error bodies', 'webhooks', 'OpenAPI contracts'], related: ['backend', 'tooling'] },
  { tag: 'databases', subjects: ['indexes', 'query plans', 'replication', 'connection pools', 'transactions'], related: ['backend', 'performance'] },
  { tag: 'performance', subjects: ['flame graphs', 'memory leaks', 'benchmarks', 'latency budgets', 'profilers'], related: ['systems', 'databases'] },
  { tag: 'systems', subjects: ['file systems', 'schedulers', 'syscalls', 'memory allocators', 'networking stacks'], related: ['rust', 'go'] },
  { tag: 'devops', subjects: ['container images', 'deploy pipelines', 'rollbacks', 'feature flags', 'observability'], related: ['cloud', 'tooling'] },
  { tag: 'cloud', subjects: ['object storage', 'serverless functions', 'cost control', 'regions', 'IAM policies'], related: ['devops', 'security'] },
  { tag: 'security', subjects: ['threat models', 'secrets management', 'dependency audits', 'SSRF defenses', 'password hashing'], related: ['cloud', 'backend'] },
  { tag: 'tooling', subjects: ['linters', 'formatters', 'monorepos', 'build caches', 'code generation'], related: ['typescript', 'devops'] },
  { tag: 'data-science', subjects: ['data cleaning', 'notebooks', 'feature engineering', 'visualization', 'sampling'], related: ['python', 'machine-learning'] },
  { tag: 'machine-learning', subjects: ['embeddings', 'fine-tuning', 'evaluation sets', 'retrieval', 'prompt design'], related: ['data-science', 'python'] },
  { tag: 'writing', subjects: ['outlines', 'editing', 'headlines', 'newsletters', 'technical storytelling'], related: ['career', 'productivity'] },
  { tag: 'career', subjects: ['code reviews', 'mentoring', 'interviews', 'promotions', 'side projects'], related: ['writing', 'productivity'] },
  { tag: 'productivity', subjects: ['note taking', 'focus time', 'keyboard shortcuts', 'checklists', 'weekly reviews'], related: ['career', 'writing'] },
  { tag: 'mobile', subjects: ['offline sync', 'push notifications', 'app size', 'navigation patterns', 'battery use'], related: ['design', 'performance'] },
  { tag: 'testing', subjects: ['property-based tests', 'contract tests', 'flaky tests', 'test doubles', 'coverage'], related: ['tooling', 'api-design'] },
];

const TITLES: ReadonlyArray<(s: string) => string> = [
  (s) => `A practical guide to ${s}`,
  (s) => `What I learned about ${s} in production`,
  (s) => `${cap(s)} explained with small examples`,
  (s) => `Five mistakes teams make with ${s}`,
  (s) => `Getting started with ${s}`,
  (s) => `${cap(s)}: a field report`,
  (s) => `Why ${s} matter more than you think`,
  (s) => `Debugging ${s} step by step`,
];

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kira', 'Lena', 'Mateo', 'Nadia', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tara', 'Umar', 'Vera', 'Wen', 'Ximena', 'Yusuf', 'Zoe'];
const LAST = ['Park', 'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Silva', 'Novak', 'Haddad', 'Kowalski', 'Rossi', 'Nguyen', 'Fischer', 'Costa', 'Ibrahim', 'Jensen', 'Alvarez'];
const ROLES = ['Frontend engineer', 'Backend engineer', 'Site reliability engineer', 'Data scientist', 'Developer advocate', 'Technical writer', 'Engineering manager', 'Security researcher', 'Designer who codes', 'Indie hacker'];

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const slugify = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

interface Author {
  username: string;
  display_name: string;
  avatar_url: string;
  profile_url: string;
}

interface Profile extends Author {
  bio: string;
  follower_count: number;
  article_count: number;
}

interface Article {
  slug: string;
  title: string;
  excerpt: string;
  url: string;
  cover_image_url: string | null;
  published_at: string;
  read_time_seconds: number;
  tags: string[];
  view_count: number;
  author: Author;
}

// Creators: each writes mostly about two or three topics.
const names = new Set<string>();
const creators = Array.from({ length: 40 }, () => {
  let first: string, last: string;
  do {
    first = pick(FIRST);
    last = pick(LAST);
  } while (names.has(`${first} ${last}`));
  names.add(`${first} ${last}`);
  const username = slugify(`${first}${last}`);
  const topics = sample(TOPICS, between(2, 3));
  const role = pick(ROLES);
  const author: Author = {
    username,
    display_name: `${first} ${last}`,
    avatar_url: `${CDN}/avatars/${username}.png`,
    profile_url: `${SITE}/@${username}`,
  };
  return { author, role, topics, followers: between(3, 48_000) };
});

// Articles, spread over two years before the stub's default clock (2026-01-15).
const START = Date.parse('2024-01-01T00:00:00Z');
const END = Date.parse('2026-01-10T00:00:00Z');
const slugs = new Set<string>();
const articles: Article[] = [];
for (let i = 0; i < ARTICLES; i += 1) {
  const creator = pick(creators);
  const topic = pick(creator.topics);
  const subject = pick(topic.subjects);
  const title = pick(TITLES)(subject);
  let slug = slugify(title);
  for (let n = 2; slugs.has(slug); n += 1) slug = `${slugify(title)}-${n}`;
  slugs.add(slug);
  const tags = [topic.tag, ...sample(topic.related, between(0, 2))];
  const minute = Math.floor((START + random() * (END - START)) / 60_000) * 60_000;
  const words = between(450, 3200);
  articles.push({
    slug,
    title,
    excerpt: `${cap(subject)} from the point of view of a ${creator.role.toLowerCase()}: what worked, what did not, and the checklist ${creator.author.display_name} now uses for ${topic.tag.replace('-', ' ')} work.`,
    url: `${SITE}/@${creator.author.username}/${slug}`,
    cover_image_url: random() < 0.8 ? `${CDN}/covers/${slug}.jpg` : null,
    published_at: new Date(minute).toISOString().replace('.000Z', 'Z'),
    read_time_seconds: Math.round((words / 238) * 60),
    tags,
    view_count: Math.floor(random() ** 3 * 250_000),
    author: creator.author,
  });
}
articles.sort((a, b) => a.published_at.localeCompare(b.published_at) || a.slug.localeCompare(b.slug));

const profiles: Profile[] = creators
  .map((c) => ({
    ...c.author,
    bio: `${c.role} writing about ${c.topics.map((t) => t.tag.replace('-', ' ')).join(', ')}.`,
    follower_count: c.followers,
    article_count: articles.filter((a) => a.author.username === c.author.username).length,
  }))
  .sort((a, b) => a.username.localeCompare(b.username));

const tagCounts = new Map<string, number>();
for (const a of articles) for (const t of a.tags) tagCounts.set(t, (tagCounts.get(t) ?? 0) + 1);
const tags = [...tagCounts].map(([name, count]) => ({ name, count })).sort((a, b) => a.name.localeCompare(b.name));

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'server-stubs', 'blog', 'corpus', 'corpus.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ articles, profiles, tags }, null, 1)}\n`);
console.log(`wrote ${articles.length} articles, ${profiles.length} profiles, ${tags.length} tags to ${out}`);
