import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * ESM for Node and bundlers: ES2022 keeps the output readable and runs in every browser
 * openapi-fetch supports; NodeNext keeps the `.js` specifiers the sources already use.
 */
const compilerFlags = [
  ['--target', 'es2022'],
  ['--module', 'nodenext'],
  ['--moduleResolution', 'nodenext'],
  ['--lib', 'es2023,dom'],
  ['--types', 'node'],
  ['--strict'],
  ['--esModuleInterop'],
  ['--skipLibCheck'],
  ['--declaration'],
  ['--newLine', 'lf'],
].flat();

/**
 * Compiles the entries (and everything they import) from `srcDir` into `outDir`, JS and `.d.ts`,
 * with the compiler of `npm run typecheck` (TypeScript 7: the same output as 5.9's API gave, for
 * much less CPU). Any diagnostic fails the build: a package that does not type-check here would not for
 * its users. `--noEmitOnError` keeps a failed build from leaving a half-written dist/ behind.
 * `typesRoot` is where `@types/node` and the dependencies' types are found (the repo's node_modules).
 */
export function compilePackage(srcDir: string, outDir: string, entryModules: string[], typesRoot: string): string[] {
  const tsc = path.join(typesRoot, 'node_modules', 'typescript-7', 'bin', 'tsc');
  const args = [
    ...compilerFlags,
    ...['--rootDir', srcDir, '--outDir', outDir, '--typeRoots', path.join(typesRoot, 'node_modules', '@types')],
    ...['--noEmitOnError', '--pretty', 'false', '--listEmittedFiles'],
    ...entryModules.map((m) => path.join(srcDir, `${m}.ts`)),
  ];
  let output: string;
  try {
    // Run from srcDir, so diagnostics name the staged files relative to it.
    output = execFileSync(process.execPath, [tsc, ...args], { cwd: srcDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`the package sources do not compile:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
  return output.split('\n').flatMap((line) => (line.startsWith('TSFILE: ') ? [line.slice('TSFILE: '.length)] : []));
}
