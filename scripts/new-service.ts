/**
 * `npm run new-service -- <slug> [--title "Inventory"]`: a new service that passes `npm test` at once:
 * its contract (openapi/<slug>/, following every house rule the build lints), its data model
 * (schemas/<slug>/), a stub with typed handlers, an error mapper and seeded credentials
 * (server-stubs/<slug>/), a test through the generated client (test/<slug>/), and its behaviour scenario
 * (scripts/lib/scenarios/<slug>.ts, found by its file name) for the conformance test. Then the build
 * registers the service in redocly.yaml and generates its types, client and docs. Nothing existing is
 * overwritten. The templates are in scripts/new-service/template/ (Liquid).
 */
import { parseArgs } from 'node:util';
import { build } from './lib/pipeline.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { scaffoldService, ScaffoldRefused } from './lib/scaffold.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { title: { type: 'string' } } });
const slug = positionals[0] ?? '';
try {
  const written = await scaffoldService(defaultRoot, slug, { title: values.title });
  for (const file of written) console.log(`created  ${file}`);
} catch (error) {
  if (!(error instanceof ScaffoldRefused)) throw error;
  console.error(`new-service: ${error.message}\nusage: npm run new-service -- <slug> [--title "Title"]`);
  process.exit(2);
}
const result = await build({ root: defaultRoot, log: (line) => (line.startsWith('skip') ? undefined : console.log(line)) });
if (!result.ok) {
  console.error(`build failed: ${result.failures.join('; ')}`);
  process.exit(1);
}
console.log(`
${slug} is served by \`npm start\` at http://localhost:4000/${slug} (key: Bearer ${slug.replaceAll('-', '_')}_test_key)
and mocked by \`npm run mock\` at http://localhost:4010/${slug}. Next:
  - edit openapi/${slug}/ and schemas/${slug}/, run \`npm run build\` (or keep \`npm run dev\` running);
  - the compiler lists the operations server-stubs/${slug}/ does not handle yet (\`npm run typecheck\`);
  - \`npx vitest run test/${slug}\` runs its tests.`);
