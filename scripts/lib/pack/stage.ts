import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PackagePlan } from './plan.js';

/** Where the shim for ajv's error type lives in the staged sources (and, compiled, in dist/). */
export const ajvErrorModule = 'lib/ajv-error';

/**
 * ajv's `ErrorObject`, as the generated validators describe their `errors`. The validators only
 * reference ajv's types (the standalone code needs ajv-formats, not ajv, at run time), so the
 * package carries this copy rather than depend on ajv or on ajv-formats installing it beside us.
 */
const ajvErrorSource = `/** The shape of an ajv validation error (ajv 8 \`ErrorObject\`), which the precompiled validators report. */
export interface ErrorObject<K extends string = string, P = Record<string, any>, S = unknown> {
  keyword: K;
  instancePath: string;
  schemaPath: string;
  params: P;
  propertyName?: string;
  message?: string;
  schema?: S;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}
`;

const ajvTypeImport = /import type \{ ErrorObject \} from 'ajv';/g;

function isPackagedSource(name: string): boolean {
  if (/\.test\.[jt]s$/.test(name)) return false;
  return name.endsWith('.ts') || name.endsWith('.js');
}

function copyTree(from: string, to: string, rewrite: (file: string, text: string) => string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = path.join(from, name);
    const dst = path.join(to, name);
    if (statSync(src).isDirectory()) copyTree(src, dst, rewrite);
    else if (isPackagedSource(name)) writeFileSync(dst, rewrite(dst, readFileSync(src, 'utf8')));
  }
}

function entrySource(reexports: string[], module: string): string {
  const fromEntry = (target: string) => path.posix.relative(path.posix.dirname(module), target);
  const lines = reexports.map((target) => {
    const spec = fromEntry(target);
    return `export * from '${spec.startsWith('.') ? spec : `./${spec}`}';`;
  });
  return `${lines.join('\n')}\n`;
}

/**
 * Copies the package's sources into `<srcDir>` with the repository's relative layout kept
 * (generated/…, clients/…), so the generated files' relative imports (`../../clients/event-stream`)
 * resolve inside the package unchanged, and writes one entry module per subpath.
 */
export function stageSources(root: string, plan: PackagePlan, srcDir: string): void {
  rmSync(srcDir, { recursive: true, force: true });
  const rewrite = (file: string, text: string) =>
    text.replace(ajvTypeImport, () => {
      let spec = path.relative(path.dirname(file), path.join(srcDir, `${ajvErrorModule}.js`)).split(path.sep).join('/');
      if (!spec.startsWith('.')) spec = `./${spec}`;
      return `import type { ErrorObject } from '${spec}';`;
    });
  mkdirSync(srcDir, { recursive: true });
  // NodeNext emits ESM or CommonJS after the nearest package.json's "type"; a staging folder
  // outside the repo (a temp dir) would otherwise compile to CommonJS.
  writeFileSync(path.join(srcDir, 'package.json'), '{ "type": "module" }\n');
  for (const dir of plan.sourceDirs) copyTree(path.join(root, dir), path.join(srcDir, dir), rewrite);
  mkdirSync(path.join(srcDir, path.dirname(ajvErrorModule)), { recursive: true });
  writeFileSync(path.join(srcDir, `${ajvErrorModule}.ts`), ajvErrorSource);
  for (const entry of plan.entries) {
    const file = path.join(srcDir, `${entry.module}.ts`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, entrySource(entry.reexports, entry.module));
  }
}

/** The hand-written or precompiled JavaScript (ajv standalone validators) that tsc does not emit. */
export function copyPrecompiled(srcDir: string, outDir: string): string[] {
  const copied: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(srcDir, rel))) {
      const r = path.join(rel, name);
      if (statSync(path.join(srcDir, r)).isDirectory()) walk(r);
      else if (name.endsWith('.js')) {
        const declaration = r.replace(/\.js$/, '.d.ts');
        for (const f of [r, declaration]) {
          mkdirSync(path.dirname(path.join(outDir, f)), { recursive: true });
          copyFileSync(path.join(srcDir, f), path.join(outDir, f));
        }
        copied.push(r);
      }
    }
  };
  walk('.');
  return copied;
}
