/**
 * `npm run mock`: a Prism mock of every service behind one port (PORT, default 4010), at the stubs'
 * base paths (mock/server.ts). `npm run mock` builds first, as `npm start` does: the mock serves the
 * contracts as they are now, from the compiled mirror.
 */
import { startMockServer } from '../mock/server.js';
import { stopOnSignals } from '../server-stubs/lib/shutdown.js';

const starting = startMockServer(Number(process.env.PORT ?? 4010), undefined, { log: (line) => console.warn(line) });
stopOnSignals(async () => (await starting).close());
const mock = await starting;
console.log(`Prism mocks of ${mock.services.length} services on http://localhost:${mock.port}`);
for (const s of mock.services) console.log(`  ${s.slug.padEnd(13)} http://localhost:${mock.port}${s.basePath}`);
for (const f of mock.failed) console.warn(`  ${f.slug.padEnd(13)} http://localhost:${mock.port}${f.basePath} answers 503: ${f.problem}`);
