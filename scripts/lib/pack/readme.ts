import type { PackageEntry } from './plan.js';

/** The package's README: how to install it and what each subpath holds. */
export function packageReadme(name: string, version: string, entries: PackageEntry[]): string {
  const rows = entries.map((e) => `| \`${name}${e.subpath.slice(1)}\` | ${e.clientFactory ? `\`${e.clientFactory}\`, ` : ''}${e.summary} |`);
  const seo = entries.find((e) => e.subpath === './seo');
  const example = seo?.clientFactory ?? entries.find((e) => e.clientFactory)?.clientFactory ?? 'createSeoClient';
  const slug = seo ? 'seo' : (entries.find((e) => e.clientFactory)?.service ?? 'seo');
  return `# ${name} ${version}

Typed clients for the platform's HTTP services, generated from their OpenAPI contracts: one
subpath per service with its [openapi-fetch](https://openapi-ts.dev/openapi-fetch/) client
factory and every type of its contract, its webhook payload types and signature verifier, its
event-stream readers, and the standalone schema types with precompiled validators. ESM with
TypeScript declarations; runs in Node 20+ and in browsers (fetch and Web Crypto only).

\`\`\`sh
npm install ./platform-contracts-${version}.tgz
\`\`\`

## Subpaths

| import from | what it holds |
|---|---|
${rows.join('\n')}

There is no root export: import a service's subpath, so a bundle only holds the services it uses.

## A client

\`\`\`ts
import { ${example}, type Project } from '${name}/${slug}';

const seo = ${example}({
  baseUrl: 'http://localhost:4000/${slug}', // the stubs; http://localhost:4010/${slug} for the mock
  headers: { Authorization: 'Bearer seo_test_key' },
});
const { data, error } = await seo.GET('/projects/{projectId}', { params: { path: { projectId } } });
\`\`\`

Every path, parameter, body and answer is typed by the contract; \`data\` and \`error\` are the
declared success and error bodies. Root schema aliases (\`Project\`) and the contract's
\`paths\`, \`operations\` and \`components\` are exported as types.

## Webhooks

\`\`\`ts
import { verifyWebhookSignature, type WebhookPayload } from '${name}/mail';

const ok = await verifyWebhookSignature(rawBody, request.headers.get('X-Service-Signature'), secret);
const event = JSON.parse(rawBody) as WebhookPayload<'formB:email.delivered'>;
\`\`\`

Verify the raw body, before parsing it; the comparison is constant-time.

## Streams

Services with \`text/event-stream\` operations export one reader per operation
(\`streamCrawl\` in \`${name}/seo\`): an async generator of frames checked against the contract.

\`\`\`ts
import { streamCrawl } from '${name}/seo';

for await (const frame of streamCrawl({ baseUrl, headers, params: { path: { jobId } } })) {
  if (frame.event === 'complete') break;
}
\`\`\`

## Schema validators

\`\`\`ts
import { validate, type Project } from '${name}/seo/schemas';

const result = validate.Project(value); // { ok: true, value: Project } | { ok: false, errors, message }
\`\`\`

The standalone schema types live apart from the client's types because both name their root
types after the schema (\`Project\`) and they are separate declarations.

## Chain RPC

\`${name}/chain-rpc\` is a JSON-RPC client over HTTP and WebSocket. Its subscriptions use the
\`ws\` package, an optional peer dependency loaded only when a subscription opens its socket:
queries and validators work without it; \`npm install ws\` to subscribe.
`;
}
