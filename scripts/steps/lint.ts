import { createRequire } from 'node:module';
import path from 'node:path';
import type { ApiService } from '../lib/project.js';

/**
 * Redocly's example rules compile an ajv validator for every example's schema and run it once:
 * most of a lint's time (3 of 6 s on a 3,000-operation contract). ajv's code optimizer (its
 * `code.optimize` option, which Redocly does not expose) only shortens the generated code, which
 * pays off for validators run many times, not once; it is switched off for Redocly's ajv.
 */
function unoptimizedExampleValidators(): void {
  const { CodeGen } = createRequire(import.meta.url)('@redocly/ajv/dist/compile/codegen/index.js') as { CodeGen: { prototype: { optimize(passes?: number): void } } };
  CodeGen.prototype.optimize = () => {};
}

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
  unoptimizedExampleValidators();
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
