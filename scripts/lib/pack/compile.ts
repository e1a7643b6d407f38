import path from 'node:path';
import ts from 'typescript';

/**
 * ESM for Node and bundlers: ES2022 keeps the output readable and runs in every browser
 * openapi-fetch supports; NodeNext keeps the `.js` specifiers the sources already use.
 */
const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  declaration: true,
  sourceMap: false,
  removeComments: false,
  newLine: ts.NewLineKind.LineFeed,
};

/**
 * Compiles the entries (and everything they import) from `srcDir` into `outDir`, JS and `.d.ts`.
 * Any diagnostic fails the build: a package that does not type-check here would not for its users.
 * `typesRoot` is where `@types/node` and the dependencies' types are found (the repo's node_modules).
 */
export function compilePackage(srcDir: string, outDir: string, entryModules: string[], typesRoot: string): string[] {
  const rootNames = entryModules.map((m) => path.join(srcDir, `${m}.ts`));
  const options: ts.CompilerOptions = { ...compilerOptions, rootDir: srcDir, outDir, typeRoots: [path.join(typesRoot, 'node_modules', '@types')] };
  const program = ts.createProgram({ rootNames, options });
  // Checked before emitting, so a failed build leaves no half-written dist/ behind.
  failOn(ts.getPreEmitDiagnostics(program), srcDir);
  const emitted: string[] = [];
  const result = program.emit(undefined, (file, text) => {
    ts.sys.writeFile(file, text);
    emitted.push(file);
  });
  failOn(result.diagnostics, srcDir);
  return emitted;
}

function failOn(diagnostics: readonly ts.Diagnostic[], srcDir: string): void {
  if (diagnostics.length === 0) return;
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => srcDir,
    getNewLine: () => '\n',
  };
  throw new Error(`the package sources do not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
}
