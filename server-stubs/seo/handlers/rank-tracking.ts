import { randomUUID } from 'node:crypto';
import type { Fail } from '../../lib/handlers.js';
import { seoHandlers, type SeoDeps } from '../context.js';
import { limits, scheduleIntervalMs, type SeoStore } from '../store.js';
import { requireProject } from './projects.js';

const PAGE_SIZES = [50, 100, 250] as const;

/** The nearest published page size; a tie goes to the smaller one. */
export function snapPageSize(requested: number): (typeof PAGE_SIZES)[number] {
  return PAGE_SIZES.reduce((best, size) => (Math.abs(size - requested) < Math.abs(best - requested) ? size : best));
}

function findConfig(store: SeoStore, fail: Fail<404>, orgId: string, projectId: string, configId: string) {
  requireProject(store, fail, orgId, projectId);
  return store.config(projectId, configId) ?? fail(404, 'NOT_FOUND', 'Rank-tracking configuration not found');
}

function assertUnique(store: SeoStore, fail: Fail<400>, projectId: string, domain: string, locationCode: number, exceptId?: string) {
  const clash = store
    .configsOf(projectId)
    .find((c) => c.id !== exceptId && c.domain.toLowerCase() === domain.toLowerCase() && c.locationCode === locationCode);
  if (clash) fail(400, 'VALIDATION_ERROR', `A configuration for ${domain} at location ${locationCode} already exists in this project`);
}

export function rankTrackingHandlers({ store }: SeoDeps) {
  return seoHandlers({
    listRankTrackingConfigs: ({ principal, query, fail }) => {
      requireProject(store, fail, principal.orgId, query.projectId);
      const configs = store.configsOf(query.projectId).map(({ projectId: _omit, ...config }) => config);
      return { status: 200, body: { configs } };
    },

    createRankTrackingConfig: ({ principal, body, fail }) => {
      requireProject(store, fail, principal.orgId, body.projectId);
      assertUnique(store, fail, body.projectId, body.domain, body.locationCode);
      if (store.configsOf(body.projectId).length >= limits.configsPerProject) {
        fail(400, 'VALIDATION_ERROR', `A project can have at most ${limits.configsPerProject} rank-tracking configurations`);
      }
      const id = randomUUID();
      store.configs.set(id, {
        id,
        projectId: body.projectId,
        domain: body.domain,
        serpDepth: body.serpDepth,
        locationCode: body.locationCode,
        languageCode: body.languageCode,
        devices: body.devices,
        scheduleInterval: body.scheduleInterval,
        isActive: true,
      });
      return { status: 201, body: { configId: id } };
    },

    updateRankTrackingConfig: ({ principal, body, fail }) => {
      const config = findConfig(store, fail, principal.orgId, body.projectId, body.configId);
      const { projectId: _p, configId: _c, ...changes } = body;
      assertUnique(store, fail, body.projectId, changes.domain ?? config.domain, changes.locationCode ?? config.locationCode, config.id);
      // isActive false pauses (no new runs), true resumes; history is kept either way.
      Object.assign(config, changes);
      return { status: 200, body: { success: true } };
    },

    deleteRankTrackingConfig: ({ principal, body, fail }) => {
      findConfig(store, fail, principal.orgId, body.projectId, body.configId);
      store.removeConfig(body.configId);
      return { status: 200, body: { success: true } };
    },

    listTrackedKeywords: ({ principal, query, fail }) => {
      const config = findConfig(store, fail, principal.orgId, query.projectId, query.configId);
      const page = query.page;
      const pageSize = snapPageSize(query.pageSize);
      const all = store.keywordsOf(config.id);
      const keywords = all.slice((page - 1) * pageSize, page * pageSize).map(({ configId: _omit, ...k }) => k);
      return { status: 200, body: { keywords, totalCount: all.length, page, pageSize } };
    },

    addTrackedKeywords: ({ principal, body, fail }) => {
      const config = findConfig(store, fail, principal.orgId, body.projectId, body.configId);
      const tracked = new Set(store.keywordsOf(config.id).map((k) => k.keyword.trim().toLowerCase()));
      const fresh: string[] = [];
      for (const raw of body.keywords) {
        const keyword = raw.trim();
        const key = keyword.toLowerCase();
        if (keyword === '' || tracked.has(key)) continue;
        tracked.add(key);
        fresh.push(keyword);
      }
      const used = store.keywordCountOfOrganization(principal.orgId);
      if (used + fresh.length > limits.keywordAllowancePerOrganization) {
        // Refused whole, so nothing is half-added; waiting does not clear it, hence no Retry-After.
        fail(
          429,
          'PLAN_LIMIT_REACHED',
          `Tracked-keyword allowance of ${limits.keywordAllowancePerOrganization} reached (${used} tracked, ${fresh.length} requested)`,
        );
      }
      const createdAt = store.now();
      const addedIds = fresh.map((keyword) => {
        const id = randomUUID();
        store.keywords.set(id, { id, configId: config.id, keyword, createdAt, position: null, url: null, lastCheckedAt: null });
        return id;
      });
      if (addedIds.length > 0 && config.isActive) store.recordRun(config);
      return { status: 201, body: { added: addedIds.length, addedIds } };
    },

    removeTrackedKeywords: ({ principal, body, fail }) => {
      const config = findConfig(store, fail, principal.orgId, body.projectId, body.configId);
      for (const id of body.keywordIds) {
        if (store.keywords.get(id)?.configId === config.id) store.keywords.delete(id);
      }
      // The published answer is the count of ids submitted, found or not.
      return { status: 200, body: { removed: body.keywordIds.length } };
    },

    getLatestRankTrackingRun: ({ principal, query, fail }) => {
      const config = findConfig(store, fail, principal.orgId, query.projectId, query.configId);
      const latest = store.latestRun(config.id);
      // A configuration that never ran (keywords added while paused) runs once it is active.
      const due = latest
        ? store.clock.now() - Date.parse(latest.startedAt) >= scheduleIntervalMs[config.scheduleInterval]
        : store.keywordsOf(config.id).length > 0;
      const run = config.isActive && due ? store.recordRun(config) : latest;
      return { status: 200, body: { run: run ?? null } };
    },
  });
}
