import type { AuditRow, AuditStatus } from './store.js';

/** How fast the simulated crawler moves; tests make it fast. */
export interface CrawlTiming {
  /** time an audit waits in `queued` */
  queuedMs: number;
  /** time per crawled page */
  pageMs: number;
}

export const defaultCrawlTiming: CrawlTiming = { queuedMs: 2000, pageMs: 400 };

/**
 * The audit's status record at `now`. The crawl is a pure function of time since it started, so a
 * poll, a stream and a test with a manual clock all see the same crawl, and no timer has to run.
 */
export function auditStatusAt(row: AuditRow, now: number, timing: CrawlTiming): AuditStatus {
  const iso = (ms: number) => new Date(ms).toISOString();
  const base = {
    jobId: row.id,
    auditId: row.id,
    projectId: row.projectId,
    startUrl: row.startUrl,
    maxPages: row.maxPages,
    strategy: row.strategy,
    createdAt: iso(row.createdAtMs),
  };
  if (row.failure && row.failure.afterPages === 0) {
    return {
      ...base,
      status: 'failed',
      pagesCrawled: 0,
      progress: 0,
      startedAt: null,
      finishedAt: iso(row.createdAtMs),
      error: { code: row.failure.code, error: row.failure.error },
    };
  }
  const startedAtMs = row.createdAtMs + timing.queuedMs;
  if (now < startedAtMs) {
    return { ...base, status: 'queued', pagesCrawled: 0, progress: 0, startedAt: null, finishedAt: null, error: null };
  }
  const stopAt = row.failure ? row.failure.afterPages : row.totalPages;
  const crawled = Math.floor((now - startedAtMs) / timing.pageMs);
  const percent = (pages: number) => Math.min(100, Math.floor((pages / row.totalPages) * 100));
  if (crawled < stopAt) {
    return {
      ...base,
      status: 'crawling',
      pagesCrawled: crawled,
      progress: percent(crawled),
      startedAt: iso(startedAtMs),
      finishedAt: null,
      error: null,
    };
  }
  const finishedAt = iso(startedAtMs + stopAt * timing.pageMs);
  if (row.failure) {
    return {
      ...base,
      status: 'failed',
      pagesCrawled: stopAt,
      progress: percent(stopAt),
      startedAt: iso(startedAtMs),
      finishedAt,
      error: { code: row.failure.code, error: row.failure.error },
    };
  }
  return { ...base, status: 'done', pagesCrawled: stopAt, progress: 100, startedAt: iso(startedAtMs), finishedAt, error: null };
}

export const isRunning = (status: AuditStatus) => status.status === 'queued' || status.status === 'crawling';
