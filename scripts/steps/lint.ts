import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ApiService } from '../lib/project.js';

/**
 * Redocly's example rules compile an ajv validator for every example's schema and run it once:
 * most of a lint's time on a large contract (bench/RESULTS.md, scale). ajv's code optimizer (its
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
  const { loadConfig } = await import('@redocly/openapi-core');
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  // The service's entry under `apis:` may tune rules for it alone.
  return lintWith(config.forAlias(service.slug), service.root, (file) => path.relative(root, file));
}

/**
 * Lints a document before it is a service (`npm run add-service` checks its staged copy): with
 * redocly.yaml as it is plus an entry `slug: {root, extends}` for it, exactly as the build will once
 * the entry is written. `shownAs` names a file in the problems (where the user's copy is).
 */
export async function lintCandidate(root: string, slug: string, file: string, profile: string[], shownAs: (file: string) => string): Promise<LintProblem[]> {
  const { createConfig } = await import('@redocly/openapi-core');
  const { parse } = await import('yaml');
  const configPath = path.join(root, 'redocly.yaml');
  const raw = (parse(readFileSync(configPath, 'utf8')) ?? {}) as { apis?: Record<string, unknown> };
  const config = await createConfig({ ...raw, apis: { ...raw.apis, [slug]: { root: file, extends: profile } } } as never, { configPath });
  return lintWith(config.forAlias(slug), file, shownAs);
}

type Problem = Awaited<ReturnType<typeof import('@redocly/openapi-core').lint>>[number];

const isUnknownKeyword = (p: Problem) => p.ruleId === 'struct' && /^Property `[^`]+` is not expected here\.$/.test(p.message);

/** Whether a JSON Pointer ends in a keyword of a Schema object. */
function inSchema(pointer: string): boolean {
  const parent = pointer.replace(/\/[^/]*$/, '');
  return /\/(schema|items|not|additionalProperties|contains|if|then|else|propertyNames|unevaluatedItems|unevaluatedProperties)$|\/(schemas|properties|patternProperties|\$defs|dependentSchemas)\/[^/]+$|\/(allOf|anyOf|oneOf|prefixItems)\/\d+$/.test(parent);
}

/**
 * Errors of Redocly's where the OpenAPI specification allows what the rule refuses: reported as
 * warnings, so a valid document is never refused for them.
 * - In 3.1 a Schema object is a JSON Schema 2020-12, where a keyword no vocabulary defines is an
 *   annotation (a 3.0 `nullable` left in a migrated document); `struct` refuses it.
 * - A specification extension (`x-…`) is free-form; `struct` holds some to Redocly's own shapes
 *   (`x-code-samples` with `lang`/`source`), though another tool's may differ.
 */
function allowedBySpecification(p: Problem, openapi31: boolean): boolean {
  const pointer = p.location[0]?.pointer ?? '';
  if (p.ruleId === 'struct' && /\/x-[^/]*(\/|$)/.test(pointer)) return true;
  return openapi31 && isUnknownKeyword(p) && inSchema(pointer);
}

type RedoclyConfig = Awaited<ReturnType<typeof import('@redocly/openapi-core').loadConfig>>;

async function lintWith(config: RedoclyConfig, ref: string, shownAs: (file: string) => string): Promise<LintProblem[]> {
  const { lint, getLineColLocation } = await import('@redocly/openapi-core');
  unoptimizedExampleValidators();
  const { specificationResolver } = await import('../lib/redocly-resolver.js');
  const problems = await lint({ ref, config, externalRefResolver: await specificationResolver() });
  const openapi31 = problems.some(isUnknownKeyword) && /^3\.1\./.test(String((await import('yaml')).parse(readFileSync(ref, 'utf8'))?.openapi));
  return problems
    .filter((p) => !p.ignored && (p.severity === 'error' || p.severity === 'warn'))
    .map((p) => (p.severity === 'error' && allowedBySpecification(p, openapi31) ? { ...p, severity: 'warn' as const } : p))
    .map((p) => {
      const location = p.location[0];
      let where = shownAs(ref);
      if (location) {
        const file = shownAs(location.source.absoluteRef);
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
