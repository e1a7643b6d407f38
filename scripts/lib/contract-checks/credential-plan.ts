/** Which credentials a contract check sends: the given headers, else the stub's seeds, else placeholders. */
import type { OpenAPI3 } from 'openapi-typescript';
import { discoverServices } from '../../../server-stubs/server.js';
import type { StubService } from '../../../server-stubs/lib/service.js';
import { placeholderCredentials, placeholderFor, seededCredentials, seededOrPlaceholder, type SchemeCredentials } from '../credentials.js';
import type { CredentialSource } from '../fuzz/contract-model.js';

export interface CredentialPlan {
  /** the report's line on what was sent */
  note: string;
  /** the `Name: value` headers given on the command line */
  given: Array<[string, string]>;
  /** the stub this machine serves the service with, when it has one */
  stub: StubService | undefined;
  /** headers sent with every example: the given ones */
  extraHeaders: Record<string, string>;
  /** the credential headers an example request carries for each security scheme */
  exampleCredentials: SchemeCredentials;
  /** the credentials the fuzzer sends */
  fuzzSources: CredentialSource[];
  /**
   * A contract without a stub is answered by the contract alone (DECISIONS I-2): where it declares
   * no status for a refusal, a 400 or 401 in RFC 9457 problem+json is the declared fallback.
   */
  fallbackRefusals: boolean;
}

const noCredentials: SchemeCredentials = () => ({});

/** The credentials of a run: the given headers, else the stub's seeds (so `npm start` needs no flags). */
export async function credentialPlan(slug: string, document: OpenAPI3, given: Array<[string, string]>, stateless: boolean): Promise<CredentialPlan> {
  const { services } = given.length ? { services: [] } : await discoverServices().catch(() => ({ services: [] }));
  const stub = services.find((s) => s.slug === slug);
  const plan = { given, stub, extraHeaders: {}, fallbackRefusals: !stub && !given.length };
  if (given.length) {
    return {
      ...plan,
      note: `${given.length} given header(s): ${given.map(([n]) => n).join(', ')}`,
      extraHeaders: Object.fromEntries(given),
      exampleCredentials: noCredentials,
      fuzzSources: [{ slug, credentials: given.map(([n, v], i) => ({ label: `header ${i + 1} (${n})`, value: `${n}: ${v}` })) }],
    };
  }
  if (stub && stub.credentials.length) {
    return {
      ...plan,
      note: `the stub's seeded credentials (${stub.credentials.filter((c) => c.valid !== false).map((c) => c.label).join(', ')})`,
      // A stateless mock checks a credential's presence only: where the stub seeds no fixed one (a
      // signed webhook), a placeholder in the scheme's shape, as the mock accepts.
      exampleCredentials: stateless ? seededOrPlaceholder(seededCredentials(stub, document)) : seededCredentials(stub, document),
      fuzzSources: services,
    };
  }
  if (!stub && Object.keys(document.components?.securitySchemes ?? {}).length > 0) {
    // A service without a stub (an imported document) has no seeds: a placeholder in each declared
    // scheme, which a mock (presence only) accepts; a real server would want --header.
    const placeholders = placeholderCredentials(document);
    return {
      ...plan,
      note: `placeholders in each declared scheme (${placeholders.map((c) => c.scheme).join(', ')}); give --header or CONTRACT_HEADERS for a real server`,
      exampleCredentials: placeholderFor,
      fuzzSources: [{ slug, credentials: placeholders }],
    };
  }
  return { ...plan, note: 'none (give --header or CONTRACT_HEADERS)', exampleCredentials: noCredentials, fuzzSources: [] };
}
