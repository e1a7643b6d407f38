/**
 * Requests a client of any OpenAPI document would send, in the shape the contract-stub tests mutate
 * (built by scripts/lib/example-request.ts, the one request builder), and the documents of
 * @readme/oas-examples bundled in memory.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';
import type { OpenAPI3 } from 'openapi-typescript';
import { placeholderFor } from '../../scripts/lib/credentials.js';
import { exampleRequest } from '../../scripts/lib/example-request.js';
import type { Operation } from '../../server-stubs/lib/openapi/document.js';

const require = createRequire(import.meta.url);
const examplesDir = path.dirname(require.resolve('@readme/oas-examples/package.json'));

/** A document of @readme/oas-examples (`3.0/petstore`), bundled as `npm run add-service` bundles it. */
export async function readmeExample(name: string): Promise<OpenAPI3> {
  const [version, file] = name.split('/');
  const result = await bundle({ ref: path.join(examplesDir, version!, 'json', `${file}.json`), config: await createConfig({}) });
  return result.bundle.parsed as OpenAPI3;
}

export interface BuiltRequest {
  /** the path and query, relative to the base path */
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData | Uint8Array | URLSearchParams;
}

/**
 * A request the operation's contract accepts, from the one request builder: every parameter, the
 * body in the first declared media type, a placeholder credential (the contract stub checks
 * presence only); `credentials: false` leaves the credentials out.
 */
export function validRequest(document: OpenAPI3, operation: Operation, options: { credentials?: boolean } = {}): BuiltRequest {
  const built = exampleRequest(document, operation, options.credentials === false ? () => ({}) : placeholderFor, { optionalParameters: true, firstMediaType: true });
  return { url: built.url, method: String(built.init.method), headers: built.init.headers as Record<string, string>, ...(built.init.body == null ? {} : { body: built.init.body as BuiltRequest['body'] }) };
}
