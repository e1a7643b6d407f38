import { randomUUID } from 'node:crypto';
import type { Fail } from '../../lib/handlers.js';
import { isBlockedAddress, loopbackHint, LookupFailed } from '../../lib/net-guard.js';
import { seoHandlers, type SeoDeps } from '../context.js';
import { auditStatusAt, isRunning } from '../crawl.js';
import { limits, simulatedSitePages, type AuditRow } from '../store.js';
import { requireProject } from './projects.js';

/** Host names whose first label is `crawl-fails` simulate a crawl that breaks after a few pages. */
const CRAWL_FAILS = /^crawl-fails\./i;

export function siteAuditHandlers({ store, resolver, crawl, stream }: SeoDeps) {
  const statusOf = (row: AuditRow) => auditStatusAt(row, store.clock.now(), crawl);

  const findAudit = (fail: Fail<404>, orgId: string, projectId: string, jobId: string) => {
    requireProject(store, fail, orgId, projectId);
    const row = store.audits.get(jobId);
    return row && row.projectId === projectId ? row : fail(404, 'NOT_FOUND', 'Audit not found');
  };

  return seoHandlers({
    startCrawl: async ({ principal, body, fail }) => {
      requireProject(store, fail, principal.orgId, body.projectId);
      const url = URL.canParse(body.startUrl) ? new URL(body.startUrl) : fail(400, 'VALIDATION_ERROR', 'startUrl is not a valid absolute URL');
      if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(400, 'VALIDATION_ERROR', 'startUrl must be an http or https URL');
      const { maxPages } = body;
      const row: AuditRow = {
        id: randomUUID(),
        orgId: principal.orgId,
        projectId: body.projectId,
        startUrl: body.startUrl,
        maxPages,
        strategy: body.strategy,
        createdAtMs: store.clock.now(),
        totalPages: body.strategy === 'none' || body.strategy === 'manual' ? 1 : Math.min(maxPages, simulatedSitePages(body.startUrl)),
      };
      try {
        const addresses = await resolver.resolve(url.hostname);
        // Every address must be public: a name with one private answer could still reach inside.
        const inside = addresses.find(isBlockedAddress);
        if (inside) {
          fail(403, 'CRAWL_TARGET_BLOCKED', `Crawl target not permitted: ${url.hostname} resolves to ${inside}, a loopback, private or link-local address${loopbackHint(inside)}`);
        }
        if (CRAWL_FAILS.test(url.hostname)) {
          row.failure = { afterPages: Math.min(3, row.totalPages), code: 'CRAWL_FAILED', error: `Crawl of ${url.hostname} failed: the server stopped answering` };
        }
      } catch (error) {
        if (!(error instanceof LookupFailed)) throw error;
        // The job is accepted; the audit ends at once with LOOKUP_FAILED, as its stream reports.
        row.failure = { afterPages: 0, code: 'LOOKUP_FAILED', error: error.message };
      }
      // Capacity last: a request that is invalid or refused for its target says so, whatever the load.
      // An archived project's audits no longer hold capacity (DECISIONS seo-2); their data is kept.
      const running = store.audits.filter((a) => store.project(principal.orgId, a.projectId) !== undefined && isRunning(statusOf(a)));
      if (running.length >= limits.runningAuditsPerOrganization) {
        fail(
          429,
          'AUDIT_CAPACITY_REACHED',
          `No audit capacity: ${running.length} audits are queued or crawling (at most ${limits.runningAuditsPerOrganization})`,
        );
      }
      store.audits.set(row.id, row);
      return { status: 202, body: { jobId: row.id, auditId: row.id } };
    },

    getCrawlStatus: ({ principal, params, query, fail }) => {
      const row = findAudit(fail, principal.orgId, query.projectId, params.jobId);
      return { status: 200, body: { status: statusOf(row) } };
    },

    streamCrawl: ({ principal, params, query, fail }) => {
      const row = findAudit(fail, principal.orgId, query.projectId, params.jobId);
      return {
        status: 200,
        stream: (events) => {
          const poll = () => {
            const status = statusOf(row);
            if (status.status === 'done') {
              events.send({ event: 'complete', data: { status } });
              events.end();
            } else if (status.status === 'failed' && status.error) {
              events.send({ event: 'error', data: { error: status.error.error, code: status.error.code } });
              events.end();
            } else {
              events.send({ event: 'progress', data: { status } });
            }
          };
          poll();
          events.every(stream.pollMs, poll);
          events.every(stream.pingMs, () => events.comment('ping'));
          events.after(stream.ceilingMs, () => {
            events.send({
              event: 'error',
              data: { error: 'Stream closed after its 10-minute ceiling; follow the crawl with the status endpoint', code: 'TIMEOUT' },
            });
            events.end();
          });
        },
      };
    },
  });
}
