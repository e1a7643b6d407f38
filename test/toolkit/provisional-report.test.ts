/**
 * `npm run report:provisional` lists what the contracts designed, each at the part that was designed
 * (DECISIONS P-1): a response, a schema, a property, a parameter, a status, a keyword's holder. The
 * expected list (fixtures/provisional-expected.json, one entry per designed part and service) is
 * explicit, so a mark that drifts onto a whole published operation, schema, response or parameter,
 * or one that disappears, fails here and the list is changed on purpose, in review.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { provisionalReport } from '../../scripts/report-provisional.js';

const expected: Record<string, string[]> = JSON.parse(readFileSync(path.join(defaultRoot, 'test', 'toolkit', 'fixtures', 'provisional-expected.json'), 'utf8'));
const reports = provisionalReport(defaultRoot);

describe('report:provisional', () => {
  test('reports the services of the expected list, and no other', () => {
    expect(reports.map((r) => r.service).sort()).toEqual(Object.keys(expected).sort());
  });

  test.each(Object.keys(expected))('%s: lists exactly the expected designed parts', (service) => {
    const report = reports.find((r) => r.service === service);
    const listed = (report?.items ?? []).map((i) => i.where);
    const want = new Set(expected[service]);
    const got = new Set(listed);
    // Named, not just counted: what appeared (a mark moved onto a larger part) and what went missing.
    expect({ unexpected: listed.filter((w) => !want.has(w)), missing: expected[service]!.filter((w) => !got.has(w)) }).toEqual({ unexpected: [], missing: [] });
    expect(listed.length).toBe(expected[service]!.length);
  });

  test('every listed part says what was designed', () => {
    for (const report of reports) for (const item of report.items) expect(item.note.trim(), `${report.service}: ${item.where}`).not.toBe('');
  });

  test('published operations carry no mark as a whole: only operations whose method and path were designed do', () => {
    // Method and path as the documents publish them (000, 001, 002), where a service once marked the whole operation.
    const published: Record<string, string[]> = {
      mail: ['GET /.well-known/oauth-authorization-server', 'POST /api/oauth/revoke', 'POST /v1/channels/whatsapp/send', 'POST /v1/channels/push/send', 'PATCH /api/segments/{id}', 'DELETE /api/segments/{id}', 'POST /api/segments/{id}/refresh', 'POST /v1/validate', 'POST /webhooks/fbl', 'GET /webhooks/fbl', 'POST /webhooks/mailserver-a', 'POST /webhooks/mailserver-b', 'POST /webhooks/auto-translate', 'GET /api/notifications', 'GET /referrals', 'POST /referrals/generate', 'GET /referrals/leaderboard', 'POST /referrals/claim', 'GET /referrals/nudge', 'GET /v1/contacts', 'POST /v1/campaigns', 'GET /v1/keys', 'DELETE /api/v1/keys', 'GET /billing/subscription', 'DELETE /accounts'],
      seo: ['GET /projects', 'POST /rank-tracking/configs', 'POST /rank-tracking/keywords', 'GET /rank-tracking/runs', 'POST /crawl/start'],
      coder: ['POST /sessions', 'POST /v1/messages/count_tokens', 'POST /v1/chat/completions', 'POST /v1/embeddings', 'POST /v1/moderations', 'POST /v1/responses', 'GET /models', 'GET /models/catalog', 'GET /.well-known/a2a-agent-card', 'GET /agents', 'GET /agents/{id}', 'POST /agents/{id}/tasks', 'GET /health', 'POST /mcp/configure', 'GET /mcp/servers', 'GET /mcp/tools', 'POST /mcp/call', 'POST /mcp/remove'],
      dev: ['POST /v1/search'],
      blog: ['GET /v1/plan', 'POST /v1/trial'],
      reach: ['POST /api/lead-finder/search', 'GET /api/lead-finder/jobs/{jobId}', 'POST /api/lead-finder/discover', 'GET /api/lead-finder/leads', 'POST /api/lead-finder/verify', 'POST /api/lead-finder/score', 'GET /api/lead-finder/lists', 'POST /api/lead-finder/lists', 'POST /api/lead-finder/lists/{listId}/sync', 'POST /api/lead-finder/enrich', 'POST /api/lead-finder/preview-message', 'GET /api/deals', 'POST /api/deals', 'PATCH /api/deals/{id}', 'GET /api/pipeline', 'POST /api/pipeline', 'POST /api/autopilot/start', 'GET /api/autopilot/{id}/status', 'GET /api/autopilot/runs', 'GET /billing/usage', 'GET /billing/subscription'],
      social: ['POST /api/generate', 'PATCH /api/posts/{id}', 'POST /api/drafts', 'GET /api/stats'],
    };
    for (const [service, operations] of Object.entries(published)) {
      const report = reports.find((r) => r.service === service)!;
      // An operation-level item is `METHOD /path (operationId)` with nothing after it.
      const whole = new Set(report.items.filter((i) => /^[A-Z]+ \S+ \([^)]*\)$/.test(i.where)).map((i) => i.where.replace(/ \([^)]*\)$/, '')));
      expect(operations.filter((o) => whole.has(o)), service).toEqual([]);
    }
  });
});
