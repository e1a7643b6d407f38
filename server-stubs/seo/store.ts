import { createHash, randomUUID } from 'node:crypto';
import type { components } from '../../generated/seo/types.gen.js';
import type { Clock } from '../lib/clock.js';
import { StateStore, type Collection } from '../lib/store.js';

export type Project = components['schemas']['Project'];
export type RankTrackingConfig = components['schemas']['RankTrackingConfig'];
export type TrackedKeyword = components['schemas']['TrackedKeyword'];
export type RankTrackingRun = components['schemas']['RankTrackingRun'];
export type AuditStatus = components['schemas']['AuditStatus'];

/** Limits the document leaves open ("not shown"); the contract marks each provisional. */
export const limits = {
  configsPerProject: 20,
  keywordAllowancePerOrganization: 500,
  runningAuditsPerOrganization: 3,
  defaultProjectName: 'My project',
} as const;

export const scheduleIntervalMs: Record<RankTrackingConfig['scheduleInterval'], number> = {
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
  monthly: 30 * 86_400_000,
};

interface ProjectRow extends Project {
  orgId: string;
  archived: boolean;
}

interface ConfigRow extends RankTrackingConfig {
  projectId: string;
}

interface KeywordRow extends TrackedKeyword {
  configId: string;
}

export interface AuditRow {
  id: string;
  orgId: string;
  projectId: string;
  startUrl: string;
  maxPages: number;
  strategy: AuditStatus['strategy'];
  createdAtMs: number;
  /** pages the simulated site has, capped by maxPages */
  totalPages: number;
  /** set when the audit ends in failure: at which page and why */
  failure?: { afterPages: number; code: 'CRAWL_FAILED' | 'LOOKUP_FAILED'; error: string };
}

/** The seo stub's state: one instance per app, organizations kept apart by `orgId`. */
export class SeoStore {
  readonly state: StateStore;
  readonly projects: Collection<ProjectRow>;
  readonly configs: Collection<ConfigRow>;
  readonly keywords: Collection<KeywordRow>;
  /** configId → runs, oldest first */
  readonly runs: Collection<RankTrackingRun[]>;
  readonly audits: Collection<AuditRow>;

  constructor(readonly clock: Clock) {
    this.state = new StateStore(clock);
    this.projects = this.state.collection<ProjectRow>('projects', { tenantOf: (p) => p.orgId });
    this.configs = this.state.collection<ConfigRow>('configs');
    this.keywords = this.state.collection<KeywordRow>('keywords');
    this.runs = this.state.collection<RankTrackingRun[]>('runs');
    this.audits = this.state.collection<AuditRow>('audits', { tenantOf: (a) => a.orgId });
  }

  /** Back to the seeds: an organization's first list creates its default project again. */
  clear(): void {
    this.state.reset();
  }

  now(): string {
    return this.state.now();
  }

  // Projects

  activeProjects(orgId: string): ProjectRow[] {
    return this.projects.of(orgId, (p) => !p.archived);
  }

  /** The project if it exists, belongs to the organization and is not archived. */
  project(orgId: string, id: string): ProjectRow | undefined {
    const p = this.projects.ownedBy(orgId, id);
    return p && !p.archived ? p : undefined;
  }

  createProject(orgId: string, name: string, domain: string | null): ProjectRow {
    const row: ProjectRow = { id: randomUUID(), name, domain, orgId, archived: false };
    this.projects.set(row.id, row);
    return row;
  }

  // Rank tracking

  configsOf(projectId: string): ConfigRow[] {
    return this.configs.filter((c) => c.projectId === projectId);
  }

  config(projectId: string, configId: string): ConfigRow | undefined {
    const c = this.configs.get(configId);
    return c && c.projectId === projectId ? c : undefined;
  }

  keywordsOf(configId: string): KeywordRow[] {
    return this.keywords.filter((k) => k.configId === configId);
  }

  /**
   * Tracked keywords across the organization's active projects. An archived project keeps its
   * keywords, but they no longer count against the allowance (DECISIONS seo-2): they can no longer
   * be read or removed, so counting them could exhaust the allowance for good.
   */
  keywordCountOfOrganization(orgId: string): number {
    let count = 0;
    for (const k of this.keywords.values()) {
      const config = this.configs.get(k.configId);
      if (config && this.project(orgId, config.projectId)) count += 1;
    }
    return count;
  }

  removeConfig(configId: string): void {
    this.configs.delete(configId);
    for (const k of this.keywordsOf(configId)) this.keywords.delete(k.id);
    this.runs.delete(configId);
  }

  latestRun(configId: string): RankTrackingRun | undefined {
    return this.runs.get(configId)?.at(-1);
  }

  /**
   * Checks the positions of every keyword of a configuration now: the run is recorded, and each
   * keyword's latest position is updated. Positions are derived from a hash, so they are stable for
   * a keyword within a run and move between runs, as real rankings do.
   */
  recordRun(config: ConfigRow): RankTrackingRun {
    const runs = this.runs.get(config.id) ?? [];
    const keywords = this.keywordsOf(config.id);
    const devices: Array<'desktop' | 'mobile'> = config.devices === 'both' ? ['desktop', 'mobile'] : [config.devices];
    const checkedAt = this.now();
    const results = keywords.flatMap((k) =>
      devices.map((device) => {
        const position = serpPosition(`${k.keyword}|${device}|${runs.length}`, config.serpDepth);
        return {
          keywordId: k.id,
          keyword: k.keyword,
          device,
          position,
          url: position === null ? null : `https://${config.domain}/${slugify(k.keyword)}`,
        };
      }),
    );
    for (const k of keywords) {
      const first = results.find((r) => r.keywordId === k.id);
      k.position = first?.position ?? null;
      k.url = first?.url ?? null;
      k.lastCheckedAt = checkedAt;
    }
    const run: RankTrackingRun = {
      id: randomUUID(),
      configId: config.id,
      status: 'completed',
      startedAt: checkedAt,
      completedAt: checkedAt,
      keywordCount: keywords.length,
      results,
    };
    runs.push(run);
    this.runs.set(config.id, runs);
    return run;
  }
}

function hash32(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** A position in 1..depth, or null (not ranking within the depth) about one time in five. */
function serpPosition(seed: string, depth: number): number | null {
  const h = hash32(seed);
  return h % 5 === 0 ? null : 1 + (h % depth);
}

function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'page';
}

/** Pages of the simulated site behind a start URL: stable per URL, 12 to 51. */
export function simulatedSitePages(startUrl: string): number {
  return 12 + (hash32(startUrl) % 40);
}
