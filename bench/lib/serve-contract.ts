/**
 * Any bundle served by the stub framework alone, for the scale benchmark: every operation answers
 * its contract's main success example, every security scheme accepts any credential, so what the
 * start-up and first answers cost is the framework's on that contract, not a service's seeds.
 * `node --import tsx bench/lib/serve-contract.ts <bundle.json>`; prints `listening <port>`.
 */
import express from 'express';
import { readFileSync } from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { createExpressServer } from '../../server-stubs/lib/http-server.js';
import { createServiceRouter } from '../../server-stubs/lib/service-router.js';
import { systemClock } from '../../server-stubs/lib/clock.js';
import type { ErrorMapper } from '../../server-stubs/lib/errors.js';
import { firstExample, listOperations, responsesOf } from '../../server-stubs/lib/openapi/document.js';

const bundle = process.argv[2];
if (!bundle) throw new Error('usage: serve-contract.ts <bundle.json>');
const document = JSON.parse(readFileSync(bundle, 'utf8')) as OpenAPI3;

/** The lowest 2xx and its first JSON example: what a handler of that operation answers. */
function exampleAnswer(operation: ReturnType<typeof listOperations>[number]) {
  const responses = responsesOf(document, operation);
  const status = Object.keys(responses).filter((s) => /^2\d\d$/.test(s)).sort()[0];
  if (!status) return () => ({ status: 204 });
  const media = responses[status]?.content?.['application/json'];
  const body = firstExample(document, media);
  return () => (body.found ? { status: Number(status), body: body.value } : { status: Number(status) });
}

const handlers = Object.fromEntries(listOperations(document).map((operation) => [operation.id, exampleAnswer(operation)]));
const security = Object.fromEntries(Object.keys(document.components?.securitySchemes ?? {}).map((name) => [name, () => true]));
// The body of every service differs; the benchmark reads statuses only.
const errors: ErrorMapper = (failure) => ({ status: failure.status, body: { error: failure.message, code: failure.kind } });
const slug = 'bench';
// Typed handler maps are per service; these are built from the document at run time.
const { router, contract } = createServiceRouter({ slug, document, handlers: handlers as never, security, errors, clock: systemClock, rateLimits: false });

const app = express();
app.use(contract.basePath, router);
const server = createExpressServer(app).listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
// A normal exit on SIGTERM, so `node --cpu-prof` writes its profile.
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
