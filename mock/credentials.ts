/**
 * The mock checks credentials as the stubs do: the same seeded list (each stub's `app.ts` default
 * export), matched against the operation's security requirements, and where a scheme's credential
 * travels (Authorization, a header, a cookie) taken from `credentialHeaders`, the function that
 * prints the stubs' banner and feeds the tests. Scopes are not checked: they are the stubs' behaviour.
 */
import type { Request } from 'express';
import type { OpenAPI3 } from 'openapi-typescript';
import { bearerToken, credentialHeaders } from '../server-stubs/lib/auth.js';
import type { OperationInfo } from '../server-stubs/lib/contract.js';
import type { StubCredential, StubService } from '../server-stubs/lib/service.js';
import { loadService, serviceSlugs } from '../server-stubs/server.js';

/**
 * The stub's default export, for its `credentials` and `errors` only: importing an app module
 * builds nothing (its `create` does), so this costs the import and no timers or sockets.
 * `undefined` for a contract without a stub (stub-controls).
 */
export async function loadStubService(slug: string): Promise<Pick<StubService, 'credentials' | 'errors'> | undefined> {
  return serviceSlugs().includes(slug) ? loadService(slug) : undefined;
}

export type CredentialVerdict = { ok: true } | { ok: false; message: string };

type SchemeState = { state: 'valid' } | { state: 'missing' } | { state: 'unknown' } | { state: 'revoked'; label: string };

/** Whether the request carries what one of the operation's security requirements asks for. */
export function checkCredentials(document: OpenAPI3, operation: OperationInfo, credentials: ReadonlyArray<StubCredential>, req: Request): CredentialVerdict {
  const requirements: Array<Record<string, string[]>> = operation.op.security ?? document.security ?? [];
  if (requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0)) return { ok: true };
  const states = requirements.map((requirement) => Object.keys(requirement).map((name) => schemeState(document, name, credentials, req)));
  if (states.some((all) => all.every((s) => s.state === 'valid'))) return { ok: true };
  const flat = states.flat();
  const revoked = flat.find((s): s is Extract<SchemeState, { state: 'revoked' }> => s.state === 'revoked');
  if (revoked) return { ok: false, message: `The credential has been revoked (${revoked.label})` };
  if (flat.some((s) => s.state === 'unknown')) return { ok: false, message: 'Invalid credential: it is not one of the seeded test credentials' };
  const ways = [...new Set(requirements.flatMap((r) => Object.keys(r).map((name) => how(document, name))))];
  return { ok: false, message: `Missing credentials: send ${ways.join(' or ')}` };
}

const PLACEHOLDER = '<credential>';

/** Where a scheme's credential travels: `credentialHeaders` of a placeholder credential. */
function carrier(document: OpenAPI3, scheme: string): [string, string] {
  const [entry] = Object.entries(credentialHeaders(document, { label: scheme, scheme, value: PLACEHOLDER }));
  return entry!;
}

function how(document: OpenAPI3, scheme: string): string {
  const [name, value] = carrier(document, scheme);
  return `${name}: ${value}`;
}

/** What the request presents for a scheme, read where `credentialHeaders` puts it. */
function presented(document: OpenAPI3, scheme: string, req: Request): string | undefined {
  const [name, template] = carrier(document, scheme);
  const header = name.toLowerCase();
  if (header === 'authorization') return bearerToken(req);
  if (header === 'cookie') return (req.cookies as Record<string, string> | undefined)?.[template.slice(0, template.indexOf('='))];
  const value = req.headers[header];
  return Array.isArray(value) ? value[0] : value;
}

function schemeState(document: OpenAPI3, scheme: string, credentials: ReadonlyArray<StubCredential>, req: Request): SchemeState {
  const value = presented(document, scheme, req);
  if (value === undefined || value === '') return { state: 'missing' };
  const seeds = credentials.filter((c) => c.scheme === scheme);
  const seed = seeds.find((c) => c.value === value);
  if (seed) return seed.valid === false ? { state: 'revoked', label: seed.label } : { state: 'valid' };
  // A scheme whose only seeds are refused examples (a signature over each body) has no fixed valid
  // value: a stateless mock cannot check it, so anything else presented passes, as Prism lets it.
  // A scheme with no seed at all (mail's OAuth tokens, issued by its flow) has nothing to pass.
  return seeds.length > 0 && seeds.every((c) => c.valid === false) ? { state: 'valid' } : { state: 'unknown' };
}
