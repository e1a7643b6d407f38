import path from 'node:path';
import type { ApiService } from '../lib/project.js';

export interface LintProblem {
  severity: 'error' | 'warn';
  rule: string;
  message: string;
  /** `openapi/seo/paths/projects.yaml:12:7`, relative to the repository root. */
  where: string;
}

/** Lints one service with redocly.yaml's rules; problems name the file and line they come from. */
export async function lintService(root: string, service: ApiService): Promise<LintProblem[]> {
  const { loadConfig, lint, getLineColLocation } = await import('@redocly/openapi-core');
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  // The service's entry under `apis:` may tune rules for it alone.
  const problems = await lint({ ref: service.root, config: config.forAlias(service.slug) });
  return problems
    .filter((p) => !p.ignored && (p.severity === 'error' || p.severity === 'warn'))
    .map((p) => {
      const location = p.location[0];
      let where = path.relative(root, service.root);
      if (location) {
        const file = path.relative(root, location.source.absoluteRef);
        try {
          const { start } = getLineColLocation(location);
          where = `${file}:${start.line}:${start.col}`;
        } catch {
          where = `${file}#${location.pointer ?? ''}`;
        }
      }
      return { severity: p.severity as 'error' | 'warn', rule: p.ruleId, message: p.message, where };
    });
}

export function formatLintProblem(p: LintProblem): string {
  return `${p.where}  ${p.severity === 'error' ? 'error' : 'warning'}  ${p.rule}  ${p.message}`;
}
