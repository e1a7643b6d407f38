import type { components } from '../../../generated/blog/types.gen.js';
import type { Fail } from '../../lib/handlers.js';
import { blogHandlers, type BlogDeps } from '../context.js';
import { admit } from '../metering.js';
import { entry, iso, type Account, type Article, type BlogStore } from '../store.js';

type ArticleContent = components['schemas']['ArticleContent'];

const SITE = 'https://blog.example';
const CDN = 'https://cdn.blog.example';
const WORDS_PER_MINUTE = 238;

function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'article';
}

function plainText(markdown: string): string {
  return markdown.replace(/[#>*_`[\]()!-]+/g, ' ').replace(/\s+/g, ' ').trim();
}

function excerptOf(markdown: string): string {
  const text = plainText(markdown);
  return text.length <= 160 ? text : `${text.slice(0, 157).trimEnd()}...`;
}

function readTimeSeconds(markdown: string): number {
  const words = plainText(markdown).split(' ').filter(Boolean).length;
  return Math.round((words / WORDS_PER_MINUTE) * 60);
}

/** A new article of the account, published now; the slug is the title's plus a short piece of a fresh id. */
function publish(store: BlogStore, account: Account, content: ArticleContent, id = store.newId()): Article {
  const slug = `${slugify(content.title)}-${id.replaceAll('-', '').slice(0, 6)}`;
  const article: Article = {
    slug,
    title: content.title.trim(),
    excerpt: excerptOf(content.body_markdown),
    url: `${SITE}/@${account.username}/${slug}`,
    cover_image_url: content.cover_image_url ?? null,
    published_at: iso(store.now()),
    read_time_seconds: readTimeSeconds(content.body_markdown),
    tags: content.tags ?? [],
    view_count: 0,
    author: {
      username: account.username,
      display_name: account.displayName,
      avatar_url: `${CDN}/avatars/${account.username}.png`,
      profile_url: `${SITE}/@${account.username}`,
    },
  };
  account.articles[slug] = article;
  return article;
}

const requireArticle = (account: Account, slug: string, fail: Fail<404>) => entry(account.articles, slug) ?? fail(404, 'not_found', 'Article not found');

/**
 * The six automation writes, each one `mcp_write_actions`. A request for something that is not the
 * caller's is a 404 before the allowance is looked at: it would not have been counted anyway.
 */
export function automationHandlers({ store }: BlogDeps) {
  const writes = (accountId: string, fail: Fail<429>) => {
    const account = store.account(accountId);
    return { account, meter: admit(store, account, 'mcp_write_actions', fail) };
  };

  return blogHandlers({
    createDraft: ({ principal, body, fail }) => {
      const { account, meter } = writes(principal.accountId, fail);
      const draft = {
        id: store.newId(),
        title: body.title.trim(),
        body_markdown: body.body_markdown,
        tags: body.tags ?? [],
        cover_image_url: body.cover_image_url ?? null,
        created_at: iso(store.now()),
      };
      account.drafts[draft.id] = draft;
      return { status: 201, headers: meter.commit(), body: draft };
    },

    publishDraft: ({ principal, params, fail }) => {
      const draft = entry(store.account(principal.accountId).drafts, params.draftId) ?? fail(404, 'not_found', 'Draft not found');
      const { account, meter } = writes(principal.accountId, fail);
      const article = publish(store, account, draft, draft.id);
      delete account.drafts[draft.id];
      return { status: 201, headers: meter.commit(), body: article };
    },

    publishArticle: ({ principal, body, fail }) => {
      const { account, meter } = writes(principal.accountId, fail);
      return { status: 201, headers: meter.commit(), body: publish(store, account, body) };
    },

    updateArticle: ({ principal, params, body, fail }) => {
      const article = requireArticle(store.account(principal.accountId), params.slug, fail);
      const { meter } = writes(principal.accountId, fail);
      if (body.title !== undefined) article.title = body.title.trim();
      if (body.body_markdown !== undefined) {
        article.excerpt = excerptOf(body.body_markdown);
        article.read_time_seconds = readTimeSeconds(body.body_markdown);
      }
      if (body.tags !== undefined) article.tags = body.tags;
      if (body.cover_image_url !== undefined) article.cover_image_url = body.cover_image_url;
      return { status: 200, headers: meter.commit(), body: article };
    },

    createSeries: ({ principal, body, fail }) => {
      const { account, meter } = writes(principal.accountId, fail);
      const series = { id: store.newId(), title: body.title.trim(), description: body.description ?? null, articles: [], created_at: iso(store.now()) };
      account.series[series.id] = series;
      return { status: 201, headers: meter.commit(), body: series };
    },

    addToSeries: ({ principal, params, body, fail }) => {
      const owner = store.account(principal.accountId);
      const series = entry(owner.series, params.seriesId) ?? fail(404, 'not_found', 'Series not found');
      requireArticle(owner, body.slug, fail);
      const { meter } = writes(principal.accountId, fail);
      if (!series.articles.includes(body.slug)) series.articles.push(body.slug);
      return { status: 200, headers: meter.commit(), body: series };
    },
  });
}
