import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

/** Authorization codes live 10 minutes (document: OAuth) and are usable once. */
export const codeLifetimeMs = 10 * 60 * 1000;

export interface AuthorizationCode {
  /** names every token issued from this code, so a replay can revoke them (RFC 6749 §4.1.2) */
  grantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge?: string;
  issuedAt: number;
  redeemedAt?: number;
}

export type Redemption =
  | { kind: 'ok'; code: AuthorizationCode }
  | { kind: 'unknown' }
  | { kind: 'expired' }
  /** a second use: the caller revokes what the first use issued */
  | { kind: 'replayed'; code: AuthorizationCode };

export class AuthorizationCodes {
  private readonly clock: Clock;
  /** by the code's value (a code is a one-time secret the client already holds) */
  private readonly codes: Collection<AuthorizationCode>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.codes = state.collection('oauth.codes');
  }

  issue(grant: Omit<AuthorizationCode, 'grantId' | 'issuedAt' | 'redeemedAt'>): string {
    const value = randomBytes(32).toString('base64url');
    this.codes.set(value, { ...grant, grantId: `grant_${randomUUID()}`, issuedAt: this.clock.now() });
    return value;
  }

  /** Looks a code up without using it: the token request's other checks come first. */
  inspect(value: string): Redemption {
    const code = this.codes.get(value);
    if (!code) return { kind: 'unknown' };
    if (code.redeemedAt !== undefined) return { kind: 'replayed', code };
    if (this.clock.now() - code.issuedAt >= codeLifetimeMs) return { kind: 'expired' };
    return { kind: 'ok', code };
  }

  markRedeemed(code: AuthorizationCode): void {
    code.redeemedAt = this.clock.now();
  }
}

/** PKCE S256 (RFC 7636 §4.6): base64url, unpadded, of the SHA-256 of the verifier. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
