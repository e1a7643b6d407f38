/**
 * `npm run add-service -- <slug> --from <file|folder> [--root <file>]`: an existing OpenAPI 3.0 or
 * 3.1 document, brought in unchanged under openapi/<slug>/ and built; `npm start` then serves it
 * from its contract alone and `npm run mock` mocks it, both at /<slug>. See scripts/lib/add-service.ts.
 */
import { parseArgs } from 'node:util';
import { addService } from './lib/add-service.js';
import { build } from './lib/pipeline.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { ScaffoldRefused } from './lib/scaffold.js';

const usage = 'usage: npm run add-service -- <slug> --from <file|folder> [--root <file inside the folder>]';
let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { from: { type: 'string' }, root: { type: 'string' } } });
} catch (error) {
  console.error(`add-service: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (positionals.length !== 1 || values.from === undefined) {
  console.error(`add-service: ${positionals.length === 0 ? 'name the service (a slug)' : positionals.length > 1 ? `one slug, not ${positionals.length}` : '--from is required'}\n${usage}`);
  process.exit(2);
}
const slug = positionals[0]!;
let added;
try {
  added = await addService(defaultRoot, slug, { from: values.from, rootFile: values.root });
} catch (error) {
  if (!(error instanceof ScaffoldRefused)) throw error;
  console.error(`add-service: ${error.message}`);
  process.exit(2);
}
console.log(`added    ${added.root} (${added.files.length} file${added.files.length === 1 ? '' : 's'}), registered in redocly.yaml with extends: [platform/imported]`);
const result = await build({ root: defaultRoot, compile: true, linted: { [slug]: added.problems }, log: (line) => (line.startsWith('skip') ? undefined : console.log(line)) });
if (!result.ok) {
  console.error(`build failed: ${result.failures.join('; ')}`);
  process.exit(1);
}
console.log(`
${slug} is served from its contract by \`npm start\` at http://localhost:4000/${slug} and mocked by
\`npm run mock\` at http://localhost:4010/${slug}. Next:
  - \`npm run contract -- --base-url http://localhost:4000/${slug} --stateless\` checks the stub against it;
  - hand-written handlers take over operation by operation (README: "Bring your own OpenAPI document").`);
