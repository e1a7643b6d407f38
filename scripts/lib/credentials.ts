import { credentialHeaders } from '../../server-stubs/lib/auth.js';
import type { StubService } from '../../server-stubs/lib/service.js';
import type { JsonNode } from './operations.js';

/**
 * Headers of the service's first valid seeded credential for a security scheme, from the same list
 * that feeds the stub's auth and the start banner; none when the service seeds none for it.
 */
export function seededCredentials(service: Pick<StubService, 'credentials'> | undefined, document: JsonNode) {
  return (_scheme: JsonNode, name: string): Record<string, string> => {
    const credential = service?.credentials.find((c) => c.scheme === name && c.valid !== false);
    return credential ? credentialHeaders(document, credential) : {};
  };
}

/** Headers for the document's first security requirement, from the seeded credentials (one tenant's). */
export function defaultCredentialHeaders(service: Pick<StubService, 'credentials'> | undefined, document: JsonNode): Record<string, string> {
  const requirement: Record<string, string[]> = (document.security ?? [])[0] ?? {};
  const credentials = seededCredentials(service, document);
  return Object.assign({}, ...Object.keys(requirement).map((name) => credentials(document.components?.securitySchemes?.[name] ?? {}, name)));
}
