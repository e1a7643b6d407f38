/**
 * The scenario of a service that has none of its own (a document brought in by `npm run
 * add-service`, served from its contract alone): every operation called once with the contract's
 * example request, a schema sample where it has no example. Such a server builds no state one call
 * could hand the next, and only the contract says what an answer must hold, so nothing is asked
 * beyond what the caller checks of every call: a declared success, with a body valid against the
 * contract.
 */
import { sample } from 'openapi-sampler';
import { encodeBody, exampleRequest, type BuiltRequest } from '../example-request.js';
import { deref, firstExample, listOperations, requestBodyOf, type JsonNode, type Operation } from '../operations.js';
import type { SchemeCredentials } from '../credentials.js';
import type { ScenarioContext, ServiceScenario } from './scenario.js';

/**
 * A value in the schema's own shape (format, pattern, bounds), for what a document brought in gives
 * no example of: exampleRequest's stand-in for a parameter (the string `example`) fails a date or a
 * pattern, and a required body it leaves out is refused. None when the schema cannot be sampled.
 */
function sampled(document: JsonNode, schema: JsonNode | undefined): { found: boolean; value?: unknown } {
  if (!schema) return { found: false };
  try {
    return { found: true, value: sample(deref(document, schema) ?? {}, { skipReadOnly: true, enablePatterns: true, quiet: true }, document) };
  } catch {
    return { found: false };
  }
}

/** The operation's example request, with a sample where the contract has no example of a parameter or of a required body. */
export function exampleOrSampledRequest(document: JsonNode, operation: Operation, credentials: SchemeCredentials): BuiltRequest {
  const overrides: Record<string, string> = {};
  for (const parameter of operation.op.parameters ?? []) {
    if (firstExample(document, parameter).found) continue;
    const value = sampled(document, parameter.schema);
    if (value.found && value.value !== undefined) overrides[parameter.name] = typeof value.value === 'object' ? JSON.stringify(value.value) : String(value.value);
  }
  const request = exampleRequest(document, operation, credentials, overrides);
  const body = requestBodyOf(document, operation);
  const [mediaType, media] = Object.entries<JsonNode>(body?.content ?? {})[0] ?? [];
  if (request.init.body === undefined && body?.required && mediaType) {
    const value = sampled(document, media?.schema);
    if (value.found) {
      request.init.headers = { ...(request.init.headers as Record<string, string>), 'content-type': mediaType };
      request.init.body = encodeBody(mediaType, value.value);
    }
  }
  return request;
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
export function examplesScenario(document: JsonNode, credentials: SchemeCredentials): ServiceScenario<ScenarioContext> {
  const calls = Object.fromEntries(
    listOperations(document).map((operation) => [
      operation.id,
      async (ctx: ScenarioContext) => {
        const request = exampleOrSampledRequest(document, operation, credentials);
        // Header names in one case, so the context's header replaces the scheme's instead of joining it.
        const headers = Object.fromEntries([...Object.entries(request.init.headers as Record<string, string>), ...Object.entries(ctx.headers)].map(([name, value]) => [name.toLowerCase(), value]));
        // A redirect is an answer of its own (the contract declares it), not something to follow.
        return outcomeOfResponse(await fetch(`${ctx.baseUrl}${request.url}`, { ...request.init, headers, redirect: 'manual' }));
      },
    ]),
  );
  return { setup: async (ctx) => ctx, calls, expectations: {} };
}
