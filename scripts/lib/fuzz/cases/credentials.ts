/** Credentials: every variant the security schemes allow a caller to get wrong. */
import fc from 'fast-check';
import type { RequestKit } from '../request-kit.js';

export function credentialRequests(kit: RequestKit) {
  const { validParts, assemble, where, forOps } = kit;
  const badCredentials = forOps(
    where((m) => m.credentials.variants.length > 0),
    (m) =>
      fc.tuple(validParts(m), fc.constantFrom(...m.credentials.variants)).map(([parts, variant]) =>
        assemble(m, parts, { case: `auth: ${variant.label.replace(/:.*$/, '')}`, credentials: variant.headers, expect: variant.expect === 'reject' ? 'reject' : 'any' }),
      ),
  );
  return { badCredentials };
}
