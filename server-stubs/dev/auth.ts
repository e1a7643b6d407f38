import type { Request } from 'express';
import { bearerToken, fail, type SecurityHandler } from '../lib/auth.js';
import { ApiError } from '../lib/errors.js';
import type { StubCredential } from '../lib/service.js';
import type { DevPrincipal } from './context.js';

/**
 * Key prefixes of the platform's other products (CONVENTIONS §1, §6). Keys are product-bound, so
 * such a key is refused like any other, but named for what it is: the caller mixed up products.
 */
const otherProducts = /^(seo_|coder_|social_|msk_|mbk_|msr_|mrk_)/;

/** Bearer keys of grounded search: live keys pass; missing, malformed, revoked and other products' keys are 401. */
export function devKeys(credentials: ReadonlyArray<StubCredential>): SecurityHandler {
  const live = new Map<string, DevPrincipal>();
  const revoked = new Set<string>();
  for (const credential of credentials) {
    if (credential.valid === false) revoked.add(credential.value);
    else live.set(credential.value, { id: credential.value, tenant: credential.tenant ?? credential.value });
  }
  return (req: Request) => {
    const token = bearerToken(req);
    if (!token) fail(req, new ApiError(401, 'missing_api_key', 'Missing or invalid Authorization header'));
    if (revoked.has(token)) fail(req, new ApiError(401, 'revoked_api_key', 'This API key has been revoked'));
    if (otherProducts.test(token)) fail(req, new ApiError(401, 'wrong_product_key', 'This key belongs to another product; grounded search needs a dev key'));
    const principal = live.get(token);
    if (!principal) fail(req, new ApiError(401, 'invalid_api_key', 'Invalid API key'));
    req.principal = principal;
    return true;
  };
}
