/**
 * The scenario of a service that has none of its own (a document brought in by `npm run
 * add-service`, served from its contract alone): every operation called once with the contract's
 * example request, a schema sample where it has no example. Such a server builds no state one call
 * could hand the next, and only the contract says what an answer must hold, so nothing is asked
 * beyond what the caller checks of every call: a declared success, with a body valid against the
 * contract.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { exampleRequest, type BuiltRequest } from '../example-request.js';
import { listOperations, type Operation } from '../../../server-stubs/lib/openapi/document.js';
import type { SchemeCredentials } from '../credentials.js';
import { type ScenarioContext, type ServiceScenario, transportOf } from './scenario.js';

/**
 * The operation's example request; what the contract gives no example of (a parameter, optional
 * ones included, or a required body) is sampled in its schema's own shape (format, pattern, bounds).
 */
export function exampleOrSampledRequest(document: OpenAPI3, operation: Operation, credentials: SchemeCredentials): BuiltRequest {
  return exampleRequest(document, operation, credentials, { optionalParameters: true });
}

/** The answer as a scenario outcome: a JSON body parsed, an event stream as its text, anything else by its status alone. */
async function outcomeOfResponse(response: Response): Promise<{ status: number; body?: unknown; stream?: string }> {
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (type.startsWith('text/event-stream')) return { status: response.status, stream: text };
  if (type.includes('json') && text) return { status: response.status, body: JSON.parse(text) as unknown };
  return { status: response.status };
}

/**
 * Every operation of the document called once with its example (or sampled) request. The
 * credentials of each operation's scheme come from `credentials`; the context's headers (one
 * tenant's, or what `npm run contract --header` was given) go with every call and win.
 */
export function examplesScenario(document: OpenAPI3, credentials: SchemeCredentials): ServiceScenario<ScenarioContext> {
  const calls = Object.fromEntries(
    listOperations(document).map((operation) => [
      operation.id,
      async (ctx: ScenarioContext) => {
        const request = exampleOrSampledRequest(document, operation, credentials);
        // Header names in one case, so the context's header replaces the scheme's instead of joining it.
        const headers = Object.fromEntries([...Object.entries(request.init.headers as Record<string, string>), ...Object.entries(ctx.headers)].map(([name, value]) => [name.toLowerCase(), value]));
        // A redirect is an answer of its own (the contract declares it), not something to follow.
        return outcomeOfResponse(await transportOf(ctx)(`${ctx.baseUrl}${request.url}`, { ...request.init, headers, redirect: 'manual' }));
      },
    ]),
  );
  return { setup: async (ctx) => ctx, calls, expectations: {} };
}
