/**
 * The scenario of a service that has none of its own (a document brought in by `npm run
 * add-service`, served from its contract alone): every operation called once with the contract's
 * example request. Such a server builds no state one call could hand the next, and only the
 * contract says what an answer must hold, so nothing is asked beyond what the caller checks of
 * every call: a declared success, with a body valid against the contract.
 */
import { exampleRequest } from '../example-request.js';
import { listOperations, type JsonNode } from '../operations.js';
import type { ScenarioContext, ServiceScenario } from './scenario.js';

/** Credential headers for one security scheme of the document, by its name there. */
export type SchemeCredentials = (scheme: JsonNode, name: string) => Record<string, string>;

/**
 * A credential in the scheme's own shape whose value is a placeholder: what a server that checks
 * only that a credential is present (the contract-only stub, the mock) accepts.
 */
export function placeholderCredentials(scheme: JsonNode): Record<string, string> {
  if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic') return { authorization: `Basic ${Buffer.from('placeholder:placeholder').toString('base64')}` };
  if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return { authorization: 'Bearer placeholder-token' };
  if (scheme.type === 'apiKey' && scheme.in === 'header') return { [String(scheme.name)]: 'placeholder-key' };
  if (scheme.type === 'apiKey' && scheme.in === 'cookie') return { cookie: `${String(scheme.name)}=placeholder` };
  return {};
}

/** The service's seeded credential for a scheme where it has one, else a placeholder in the scheme's shape. */
export function seededOrPlaceholder(seeded: SchemeCredentials): SchemeCredentials {
  return (scheme, name) => {
    const headers = seeded(scheme, name);
    return Object.keys(headers).length > 0 ? headers : placeholderCredentials(scheme);
  };
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
 * Every operation of the document called once with its example request. The credentials of each
 * operation's scheme come from `credentials`; the context's headers (one tenant's, or what
 * `npm run contract --header` was given) go with every call and win.
 */
export function examplesScenario(document: JsonNode, credentials: SchemeCredentials): ServiceScenario<ScenarioContext> {
  const calls = Object.fromEntries(
    listOperations(document).map((operation) => [
      operation.id,
      async (ctx: ScenarioContext) => {
        const request = exampleRequest(document, operation, credentials);
        // Header names in one case, so the context's header replaces the scheme's instead of joining it.
        const headers = Object.fromEntries([...Object.entries(request.init.headers as Record<string, string>), ...Object.entries(ctx.headers)].map(([name, value]) => [name.toLowerCase(), value]));
        // A redirect is an answer of its own (the contract declares it), not something to follow.
        return outcomeOfResponse(await fetch(`${ctx.baseUrl}${request.url}`, { ...request.init, headers, redirect: 'manual' }));
      },
    ]),
  );
  return { setup: async (ctx) => ctx, calls, expectations: {} };
}
