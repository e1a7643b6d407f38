// ESLint (flat config): a few type-aware rules that catch real bugs in the hand-written TypeScript:
// promises nobody awaits or whose rejection nobody handles, promises passed where a plain value is
// expected, `await` on something that is not a promise, and `any` that switches type checking off.
// Formatting is not linted. `npx eslint .`; `npm run check` runs the same config.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The globals the plain JavaScript uses (the `globals` package is not installed for so few names).
const browserScripts = 'scripts/steps/docs/assets/**/*.js';
const readonly = (names) => Object.fromEntries(names.map((name) => [name, 'readonly']));
const shared = ['console', 'fetch', 'URL', 'URLSearchParams', 'Headers', 'AbortController', 'TextDecoder', 'TextEncoder', 'TextDecoderStream', 'performance', 'setTimeout', 'clearTimeout', 'structuredClone'];
const nodeGlobals = readonly([...shared, 'process', 'Buffer', 'setImmediate', 'module', 'require', '__dirname']);
const browserGlobals = readonly([...shared, 'window', 'document', 'location', 'navigator', 'localStorage', 'sessionStorage']);

export default defineConfig(
  {
    ignores: [
      'generated/**', // built by `npm run build`, never edited by hand
      'node_modules/**',
      '.cache/**',
      'test-results/**',
      'dist/**', // packed clients (npm run pack:clients)
      'coverage/**',
      '**/fixtures/**', // committed data, not code
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // Plain JavaScript (the docs page's script, Redocly's plugin, a tool server): no types to use,
    // so only ESLint's own correctness rules.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ignores: [browserScripts],
    ...js.configs.recommended,
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: [browserScripts], // served to the docs page
    ...js.configs.recommended,
    languageOptions: { globals: browserGlobals },
  },
);
