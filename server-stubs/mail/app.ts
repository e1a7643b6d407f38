import type { operations } from '../../generated/mail/types.gen.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createServiceRouter } from '../lib/service-router.js';
import type { StubCredential, StubEnvironment, StubService } from '../lib/service.js';
import { mailCredentials, mailSecurity, providerSecretsFromEnv, type MailPrincipal, type ProviderSecrets } from './auth.js';
import { mailErrors } from './errors.js';

export interface MailAppOptions extends StubEnvironment {
  clock?: Clock;
  secrets?: Partial<ProviderSecrets>;
  validateRequests?: boolean;
  validateResponses?: boolean;
  rateLimits?: boolean;
}

/**
 * The mail stub. The contract, its validation and its authentication are live; the reference
 * behaviour of each operation lands operation by operation, and until then an operation answers
 * 501 in the mail error body, naming itself.
 */
export function createMailApp(options: MailAppOptions = {}) {
  const secrets = { ...providerSecretsFromEnv(), ...options.secrets };
  const clock = options.clock ?? systemClock;
  const { router, contract, limiter, unimplemented } = createServiceRouter<operations, MailPrincipal>({
    slug: 'mail',
    handlers: {},
    security: mailSecurity(secrets),
    errors: mailErrors,
    clock,
    corsOrigins: options.corsOrigins,
    validateRequests: options.validateRequests,
    validateResponses: options.validateResponses,
    rateLimits: options.rateLimits,
  });
  return { router, limiter, basePath: contract.basePath, unimplemented, reset: () => limiter.reset() };
}

/** The provider and internal secrets, as their senders present them (test defaults unless set in the environment). */
function providerCredentials(secrets: ProviderSecrets): StubCredential[] {
  return [
    { label: 'Feedback loop (FBL_WEBHOOK_SECRET)', scheme: 'fblSecretHeader', value: secrets.fbl },
    { label: 'Feedback loop, as a bearer (FBL_WEBHOOK_SECRET)', scheme: 'fblBearer', value: secrets.fbl },
    { label: 'Mail server A (INBOUND_WEBHOOK_SECRET)', scheme: 'inboundSecret', value: secrets.inbound },
    { label: 'Internal (INTERNAL_SECRET)', scheme: 'internalSecret', value: secrets.internal },
    { label: 'Mail server B (from an allowlisted address, POSTAL_ALLOWED_IPS)', scheme: 'postalSignature', value: 'any-value-until-verification-lands' },
  ];
}

const service: StubService<MailAppOptions> = {
  slug: 'mail',
  basePath: '/mail',
  title: 'Mail (contract only: operations answer 501 until implemented)',
  credentials: [...mailCredentials, ...providerCredentials(providerSecretsFromEnv())],
  errors: mailErrors,
  create: (options) => createMailApp(options),
};

export default service;
