import { createHash, randomUUID } from 'node:crypto';
import type { components } from '../../generated/social/types.gen.js';
import type { Clock } from '../lib/clock.js';
import { StateStore, type Collection } from '../lib/store.js';

export type Platform = components['schemas']['Platform'];
export type Tone = components['schemas']['Tone'];
export type PostStatus = components['schemas']['PostStatus'];
export type Post = components['schemas']['Post'];
export type Variant = components['schemas']['Variant'];
export type Account = components['schemas']['Account'];
export type Engagement = components['schemas']['Engagement'];
export type Stats = components['schemas']['Stats'];

export const platforms: readonly Platform[] = ['x', 'linkedin', 'facebook', 'instagram', 'threads', 'bluesky'];

/** Characters (code points) a post may have per platform; designed, the document does not show them. */
export const characterLimits: Record<Platform, number> = { x: 280, bluesky: 300, threads: 500, instagram: 2200, linkedin: 3000, facebook: 5000 };

/** Rules the document leaves open ("not shown"); the contract marks each provisional. */
export const limits = {
  freePostsPerMonth: 10,
  /** a scheduled post is `queued` (in the publishing queue) this long before its time */
  queueLeadMs: 10 * 60_000,
  /** the safety check's window for the same content on the same account (published: 24 hours) */
  duplicateContentMs: 24 * 3_600_000,
} as const;

export const editableStatuses: readonly PostStatus[] = ['draft', 'pending', 'queued'];

/** The last instant an ISO 8601 date-time with a four-digit year can name. */
export const latestInstant = Date.parse('9999-12-31T23:59:59.999Z');

export interface VariantRow extends Variant {
  workspaceId: string;
}

export interface PostRow {
  id: string;
  workspaceId: string;
  accountId: string;
  platform: Platform;
  contentText: string;
  firstComment: string | null;
  variantId: string | null;
  scheduledAtMs: number;
  /** `draft` waits for approval; `scheduled` goes out at `publishAtMs`; `rejected` never does */
  state: 'draft' | 'scheduled' | 'rejected';
  /** when a scheduled post goes out: its `scheduledAt`, or the approval time of a draft approved late */
  publishAtMs: number;
  createdAtMs: number;
  updatedAtMs: number;
  /** when the current text was set: the safety check's 24 hours count from here */
  contentSetAtMs: number;
}

/** Same content for the safety check: trimmed, whitespace collapsed, case ignored. */
export function sameContentKey(text: string): string {
  return text.trim().replace(/\s+/gu, ' ').toLowerCase();
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An account id is the same for a workspace and platform on every start, and unique across workspaces. */
function accountId(workspaceId: string, platform: Platform): string {
  return `acc_${createHash('sha256').update(`${workspaceId}:${platform}`).digest('hex').slice(0, 12)}`;
}

const handles: Record<Platform, (name: string) => string> = {
  x: (n) => `@${n}`,
  linkedin: (n) => n,
  facebook: (n) => n,
  instagram: (n) => `@${n}`,
  threads: (n) => `@${n}`,
  bluesky: (n) => `@${n}.bsky.social`,
};

/** Engagement figures of a published post: made up, but the same for a post on every read. */
function engagementOf(postId: string): Engagement {
  const bytes = createHash('sha256').update(postId).digest();
  const impressions = 200 + (bytes.readUInt16BE(0) % 5000);
  const likes = Math.floor((impressions * (10 + (bytes[2]! % 70))) / 1000);
  const comments = Math.floor((likes * (5 + (bytes[3]! % 25))) / 100);
  const shares = Math.floor((likes * (2 + (bytes[4]! % 18))) / 100);
  const engagementRate = Math.round(((likes + comments + shares) / impressions) * 10_000) / 10_000;
  return { impressions, likes, comments, shares, engagementRate };
}

export interface Workspace {
  workspaceId: string;
  handle: string;
}

/** The social stub's state: one instance per app, workspaces kept apart by `workspaceId`. */
export class SocialStore {
  readonly state: StateStore;
  readonly variants: Collection<VariantRow>;
  readonly posts: Collection<PostRow>;

  constructor(readonly clock: Clock) {
    this.state = new StateStore(clock);
    this.variants = this.state.collection<VariantRow>('variants', { tenantOf: (v) => v.workspaceId });
    this.posts = this.state.collection<PostRow>('posts', { tenantOf: (p) => p.workspaceId });
  }

  /** Back to the seeds: no variants, no posts (connected accounts are part of the workspace). */
  clear(): void {
    this.state.reset();
  }

  now(): number {
    return this.clock.now();
  }

  // Accounts

  accounts({ workspaceId, handle }: Workspace): Account[] {
    return platforms.map((platform) => ({
      accountId: accountId(workspaceId, platform),
      platform,
      handle: handles[platform](handle),
      connection: platform === 'bluesky' ? 'app_password' : 'oauth',
    }));
  }

  account(workspace: Workspace, id: string): Account | undefined {
    return this.accounts(workspace).find((a) => a.accountId === id);
  }

  // Variants

  keepVariant(row: VariantRow): void {
    this.variants.set(row.variantId, row);
  }

  variant(workspaceId: string, variantId: string): VariantRow | undefined {
    return this.variants.ownedBy(workspaceId, variantId);
  }

  // Posts

  post(workspaceId: string, id: string): PostRow | undefined {
    return this.posts.ownedBy(workspaceId, id);
  }

  postsOf(workspaceId: string): PostRow[] {
    return this.posts.of(workspaceId);
  }

  createPost(fields: Pick<PostRow, 'workspaceId' | 'accountId' | 'platform' | 'contentText' | 'firstComment' | 'variantId' | 'scheduledAtMs'> & { draft: boolean }): PostRow {
    const now = this.now();
    const { draft, ...rest } = fields;
    const row: PostRow = { id: randomUUID(), ...rest, state: draft ? 'draft' : 'scheduled', publishAtMs: rest.scheduledAtMs, createdAtMs: now, updatedAtMs: now, contentSetAtMs: now };
    this.posts.set(row.id, row);
    return row;
  }

  statusOf(row: PostRow, now = this.now()): PostStatus {
    if (row.state === 'draft') return 'draft';
    if (row.state === 'rejected') return 'rejected';
    if (now >= row.publishAtMs) return 'published';
    return now >= row.publishAtMs - limits.queueLeadMs ? 'queued' : 'pending';
  }

  view(row: PostRow, now = this.now()): Post {
    const published = this.statusOf(row, now) === 'published';
    return {
      id: row.id,
      accountId: row.accountId,
      platform: row.platform,
      contentText: row.contentText,
      firstComment: row.firstComment,
      scheduledAt: iso(row.scheduledAtMs),
      status: this.statusOf(row, now),
      variantId: row.variantId,
      createdAt: iso(row.createdAtMs),
      updatedAt: iso(row.updatedAtMs),
      publishedAt: published ? iso(row.publishAtMs) : null,
      engagement: published ? engagementOf(row.id) : null,
    };
  }

  /** Another live post of the account at the same instant (a rejected draft frees its slot). */
  slotTaken(accountId: string, scheduledAtMs: number, exceptId?: string): PostRow | undefined {
    return this.posts.find((p) => p.id !== exceptId && p.state !== 'rejected' && p.accountId === accountId && p.scheduledAtMs === scheduledAtMs);
  }

  /** Another live post of the account whose same text was set less than 24 hours ago. */
  recentSameContent(accountId: string, contentText: string, exceptId?: string): PostRow | undefined {
    const key = sameContentKey(contentText);
    const since = this.now() - limits.duplicateContentMs;
    return this.posts.find(
      (p) => p.id !== exceptId && p.state !== 'rejected' && p.accountId === accountId && p.contentSetAtMs > since && sameContentKey(p.contentText) === key,
    );
  }

  /** Posts the workspace created in the current calendar month (UTC), drafts and rejected ones included. */
  postsThisMonth(workspaceId: string): number {
    const now = new Date(this.now());
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    return this.posts.of(workspaceId, (p) => p.createdAtMs >= monthStart).length;
  }

  stats(workspaceId: string): Stats {
    const now = this.now();
    const posts = this.postsOf(workspaceId).map((row) => this.view(row, now));
    const postsByStatus = { draft: 0, pending: 0, queued: 0, published: 0, rejected: 0 };
    for (const post of posts) postsByStatus[post.status] += 1;
    const published = posts.filter((p) => p.engagement !== null);
    const figures = published.map((p) => p.engagement!);
    const rates = figures.map((e) => e.engagementRate);
    const top = [...published].sort(
      (a, b) => b.engagement!.engagementRate - a.engagement!.engagementRate || a.publishedAt!.localeCompare(b.publishedAt!) || a.id.localeCompare(b.id),
    )[0];
    return {
      asOf: iso(now),
      totalPosts: posts.length,
      postsByStatus,
      totalImpressions: figures.reduce((sum, e) => sum + e.impressions, 0),
      totalEngagements: figures.reduce((sum, e) => sum + e.likes + e.comments + e.shares, 0),
      avgEngagementRate: rates.length === 0 ? 0 : Math.round((rates.reduce((a, b) => a + b, 0) / rates.length) * 10_000) / 10_000,
      topPerformingPost: top ?? null,
    };
  }
}
