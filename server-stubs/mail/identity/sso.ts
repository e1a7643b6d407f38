import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../lib/clock.js';

/**
 * Where the identity provider's signing keys are and what its tokens must say. `jwks` is the key
 * set itself or the URL it is published at (`SSO_JWKS_URL`); issuer and audience are checked when
 * set. Without a key set no token verifies.
 */
export interface SsoConfig {
  jwks?: JSONWebKeySet | string;
  issuer?: string;
  audience?: string;
}

/**
 * The development identity provider: a published test key pair (like the seeded test keys, never a
 * secret) whose tokens the stub accepts unless SSO_JWKS_URL names a real provider's key set. Sign a
 * token with `developmentSsoSigningKey` (ES256, issuer and audience below) to sign in through
 * `POST /api/auth/sso` without a provider.
 */
export const developmentSsoSigningKey = {
  kty: 'EC',
  crv: 'P-256',
  kid: 'dev-sso-1',
  alg: 'ES256',
  x: 'bhAvTi30e2u4bxMNg9_4WTdBIjpWIPRLfQpzeJm9PM0',
  y: 'MEqupEZEUKPPyrUuv2VvwMQXSlO_PhekM9R1IyfLPak',
  d: 'imnd0Xma12jWtwrzMjX2TyNFvuKHN0xgk5I6YFky5AU',
} as const;
export const developmentSsoIssuer = 'https://sso.example.test';
export const developmentSsoAudience = 'mail';

export const developmentSsoConfig: SsoConfig = {
  jwks: { keys: [(({ d: _private, ...publicPart }) => publicPart)(developmentSsoSigningKey)] },
  issuer: developmentSsoIssuer,
  audience: developmentSsoAudience,
};

export function ssoConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SsoConfig {
  if (!env.SSO_JWKS_URL) return developmentSsoConfig;
  return { jwks: env.SSO_JWKS_URL, issuer: env.SSO_ISSUER || undefined, audience: env.SSO_AUDIENCE || undefined };
}

export type SsoIdentity = { email: string; name?: string };
export type SsoVerifier = (token: string) => Promise<SsoIdentity>;

export class SsoTokenRefused extends Error {}

/** A verifier of the identity provider's tokens, with the maintained `jose` library; time is the stub clock's. */
export function ssoVerifier(config: SsoConfig, clock: Clock): SsoVerifier {
  const keys: JWTVerifyGetKey | undefined =
    config.jwks === undefined ? undefined : typeof config.jwks === 'string' ? createRemoteJWKSet(new URL(config.jwks)) : createLocalJWKSet(config.jwks);
  return async (token) => {
    if (!keys) throw new SsoTokenRefused('Invalid SSO token: no identity provider is configured (SSO_JWKS_URL)');
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: config.audience,
        currentDate: new Date(clock.now()),
        requiredClaims: ['exp'],
      });
      if (typeof payload.email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(payload.email)) throw new SsoTokenRefused('Invalid SSO token: no email claim');
      return { email: payload.email, ...(typeof payload.name === 'string' && payload.name && { name: payload.name }) };
    } catch (error) {
      if (error instanceof SsoTokenRefused) throw error;
      if (error instanceof errors.JOSEError) throw new SsoTokenRefused(`Invalid SSO token: ${error.message}`);
      // A key set that cannot be fetched is the provider's failure, but to the caller the token did not verify.
      throw new SsoTokenRefused(`Invalid SSO token: ${error instanceof Error ? error.message : 'verification failed'}`);
    }
  };
}
