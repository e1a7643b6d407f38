/**
 * `npm run proxy -- --upstream URL --service slug [--port N] [--strict]`: a validating proxy in front
 * of a real backend. Every request is forwarded; request and answer are checked against the
 * service's contract; violations are listed in `X-Contract-Violations` and logged; `--strict`
 * answers them instead (400 for the request, 502 for the answer) in the service's error body.
 * `GET /_stub/coverage` on the proxy's port answers what clients exercised through it, as on the stubs.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { loadContract } from '../server-stubs/lib/contract.js';
import { describeIssues, type ErrorMapper } from '../server-stubs/lib/errors.js';
import { createExpressServer } from '../server-stubs/lib/http-server.js';
import { validatingProxyApp } from '../server-stubs/lib/proxy.js';
import type { StubService } from '../server-stubs/lib/service.js';
import { defaultRoot } from '../server-stubs/lib/root.js';
import { findApiServices } from './lib/project.js';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    service: { type: 'string' },
    port: { type: 'string', default: '4020' },
    strict: { type: 'boolean', default: false },
  },
});
const slugs = findApiServices(defaultRoot).map((s) => s.slug);
if (!values.upstream || !values.service || !slugs.includes(values.service)) {
  console.error(`usage: npm run proxy -- --upstream http://localhost:8080/seo --service <${slugs.join('|')}> [--port 4020] [--strict]`);
  process.exit(2);
}
const slug = values.service;
const stub = path.join(defaultRoot, 'server-stubs', slug, 'app.ts');
// The service's own error body where its stub publishes one; a plain `{error}` otherwise.
const errors: ErrorMapper =
  ((await import(pathToFileURL(stub).href).catch(() => ({}))) as { default?: StubService }).default?.errors ??
  ((failure) => ({ status: failure.status, body: { error: describeIssues(failure) } }));
const contract = loadContract(slug);
createExpressServer(validatingProxyApp({ slug, upstream: values.upstream, errors, strict: values.strict, contract })).listen(Number(values.port), () => {
  console.log(`Validating proxy for ${slug}: http://localhost:${values.port}${contract.basePath} -> ${values.upstream}${values.strict ? ' (strict)' : ''}; coverage at http://localhost:${values.port}/_stub/coverage`);
});
