import { systemClock, type Clock } from '../lib/clock.js';
import { createServiceRouter } from '../lib/service-router.js';
import type { StubService } from '../lib/service.js';
import { mailSecurity, providerSecretsFromEnv, seededKeys, type ProviderSecrets } from './auth.js';
import { mailErrors } from './errors.js';

export interface MailAppOptions {
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
  const { router, contract, limiter } = createServiceRouter({
    slug: 'mail',
    handlers: {},
    allowUnimplemented: true,
    security: mailSecurity(seededKeys, secrets),
    errors: mailErrors,
    clock: options.clock ?? systemClock,
    validateRequests: options.validateRequests,
    validateResponses: options.validateResponses,
    rateLimits: options.rateLimits,
  });
  return { router, limiter, basePath: contract.basePath };
}

const secrets = providerSecretsFromEnv();

const service: StubService<MailAppOptions> = {
  slug: 'mail',
  basePath: '/mail',
  title: 'Mail (contract only: operations answer 501 until implemented)',
  credentials: [
    { label: 'API key (Max plan)', value: 'Authorization: Bearer msk_test_max' },
    { label: 'API key (Pro plan)', value: 'Authorization: Bearer msk_test_pro' },
    { label: 'API key (Free plan)', value: 'Authorization: Bearer msk_test_free' },
    { label: 'API key (revoked)', value: 'Authorization: Bearer msk_test_revoked' },
    { label: 'Session (Max plan)', value: 'Cookie: session=sess_test_max' },
    { label: 'Session (Pro plan)', value: 'Cookie: session=sess_test_pro' },
    { label: 'Session (Free plan)', value: 'Cookie: session=sess_test_free' },
    { label: 'Feedback loop (FBL_WEBHOOK_SECRET)', value: `X-Webhook-Secret: ${secrets.fbl}` },
    { label: 'Mail server A (INBOUND_WEBHOOK_SECRET)', value: `x-inbound-secret: ${secrets.inbound}` },
    { label: 'Internal (INTERNAL_SECRET)', value: `x-internal-secret: ${secrets.internal}` },
    { label: 'Mail server B (from an allowlisted address, POSTAL_ALLOWED_IPS)', value: 'X-Postal-Signature: any-value-until-verification-lands' },
  ],
  create: (options) => createMailApp(options),
};

export default service;
