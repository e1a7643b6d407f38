import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Module specifiers of a file, read by TypeScript's scanner (strings and comments are not imports). */
function specifiersOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return [...info.importedFiles, ...info.referencedFiles].map((f) => f.fileName);
}

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * What an installed package would trip over: a relative import that leaves the package or names
 * a file it does not ship, or a bare import of a package it does not declare. Checked on the
 * output, JS and declarations alike, since that is what users' Node and tsc resolve.
 */
export function findImportProblems(packageDir: string, declared: readonly string[]): string[] {
  const problems: string[] = [];
  for (const file of filesUnder(path.join(packageDir, 'dist'))) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    const rel = path.relative(packageDir, file);
    const text = readFileSync(file, 'utf8');
    // tsc's CommonJS marker: such a file would not load in a "type": "module" package.
    if (text.includes('Object.defineProperty(exports, "__esModule"')) problems.push(`${rel}: compiled to CommonJS, not ESM`);
    for (const spec of specifiersOf(text)) {
      if (spec.startsWith('.')) {
        const target = path.resolve(path.dirname(file), spec);
        const inside = !path.relative(packageDir, target).startsWith('..');
        const present = existsSync(target) || existsSync(target.replace(/\.js$/, '.d.ts'));
        if (!inside || !present) problems.push(`${rel}: '${spec}' does not resolve inside the package`);
      } else if (!spec.startsWith('node:') && !declared.includes(packageOf(spec))) {
        problems.push(`${rel}: imports '${spec}', which the package does not declare`);
      }
    }
  }
  return problems;
}
