import type { operationDefaults, operations } from '../../generated/mail/types.gen.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { createRecordResolver, type RecordResolver } from '../lib/dns-records.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import { StateStore } from '../lib/store.js';
import { contactHandlers } from './audience/handlers/contacts.js';
import { ContactsStore } from './audience/contacts-store.js';
import { segmentHandlers } from './audience/handlers/segments.js';
import { analyticsHandlers } from './analytics/handlers/analytics.js';
import { TrackingStore } from './analytics/tracking-store.js';
import { AbTestsStore } from './campaigns/ab-tests-store.js';
import { AutomationRuns } from './automations/automation-runs.js';
import { AutomationsStore } from './automations/automations-store.js';
import { automationHandlers } from './automations/handlers/automations.js';
import { CampaignRuns, type CampaignContent } from './campaigns/campaign-runs.js';
import { CampaignsStore } from './campaigns/campaigns-store.js';
import { personalized } from './campaigns/personalize.js';
import { abTestHandlers } from './campaigns/handlers/ab-tests.js';
import { campaignHandlers } from './campaigns/handlers/campaigns.js';
import { ChannelLog } from './channels/channel-log.js';
import { channelHandlers } from './channels/handlers/channels.js';
import { templateHandlers } from './content/handlers/templates.js';
import { TemplatesStore } from './content/templates-store.js';
import { SegmentsStore } from './audience/segments-store.js';
import { mailCredentials, mailSecurity, providerSecretsFromEnv, type MailPrincipal, type ProviderSecrets } from './auth.js';
import type { MailDeps, MailHandlers, SendAnswer } from './context.js';
import { dmarcHandlers } from './deliverability/handlers/dmarc.js';
import { domainHandlers } from './deliverability/handlers/domains.js';
import { validationHandlers } from './deliverability/handlers/validation.js';
import { MonitoredDomainsStore } from './deliverability/monitored-domains-store.js';
import { SendingDomainsStore } from './deliverability/sending-domains-store.js';
import { ValidationLedger } from './deliverability/validation-ledger.js';
import { mailErrors } from './errors.js';
import { MailEventBus } from './events.js';
import { oauthHandlers, OAuthState } from './handlers/oauth.js';
import { identityHandlers } from './identity/handlers/index.js';
import { InboundMail } from './inbound/inbound-mail.js';
import { notificationHandlers } from './notifications/handlers/notifications.js';
import { NotificationsStore } from './notifications/notifications-store.js';
import { providerHandlers } from './providers/handlers/providers.js';
import { ProviderLog } from './providers/provider-log.js';
import { referralHandlers } from './referrals/handlers/referrals.js';
import { ReferralsStore } from './referrals/referrals-store.js';
import { EngagementLog } from './tracking/engagement-log.js';
import { trackingHandlers } from './tracking/handlers/tracking.js';
import { webhookHandlers } from './webhooks/handlers/webhooks.js';
import { WebhooksStore } from './webhooks/webhooks-store.js';
import { infrastructureHandlers } from './infrastructure/handlers/infrastructure.js';
import { InfrastructureStore } from './infrastructure/infrastructure-store.js';
import { ssoConfigFromEnv, ssoVerifier, type SsoConfig } from './identity/sso.js';
import { Delivery } from './sending/delivery.js';
import { sendHandlers } from './sending/handlers/send.js';
import { IdempotencyKeys } from './sending/idempotency.js';
import { Outbox } from './sending/outbox.js';
import { overQuota } from './sending/sender-rules.js';
import { relayFromEnv, type MailRelay } from './sending/relay.js';
import { IdentityStore } from './identity/store.js';

export interface MailAppOptions extends StubEnvironment, RouterSwitches {
  clock?: Clock;
  secrets?: Partial<ProviderSecrets>;
  /** the identity provider whose tokens `POST /api/auth/sso` accepts (default: SSO_JWKS_URL, SSO_ISSUER, SSO_AUDIENCE) */
  sso?: SsoConfig;
  /** MX/TXT/CNAME look-ups (default: the system's DNS servers, or `STUB_DNS_SERVER`) */
  dns?: RecordResolver;
  /** where accepted mail is relayed (default: SMTP to `MAIL_SMTP_URL` when set, else nowhere: the outbox keeps it) */
  relay?: MailRelay;
  /** the public base URL of the mail service, where delivered copies' pixel and tracked links point (default: `MAIL_TRACKING_URL`, else http://localhost:$PORT/mail) */
  trackingBaseUrl?: string;
}

/**
 * The mail stub: every operation of the contract with its reference behaviour, the parts side by
 * side on one event bus (identity, audience, deliverability, sending, campaigns, automations,
 * tracking, webhooks, provider webhooks, notifications, referrals), time from one clock.
 */
export function createMailApp(options: MailAppOptions = {}) {
  const secrets = { ...providerSecretsFromEnv(), ...options.secrets };
  const clock = options.clock ?? systemClock;
  // Every part registers its collections and cells here (seeds in this order: contacts before the segments made of them).
  const state = new StateStore(clock);
  const events = new MailEventBus();
  const identity = new IdentityStore(state, (change) => events.emit('billing.plan_changed', change));
  const contacts = new ContactsStore(state, (record, tags) => events.emit('contact.tag_added', { userId: record.userId, contactId: record.id, tags }));
  const dns = options.dns ?? createRecordResolver();
  const stores = {
    contacts,
    segments: new SegmentsStore(state, contacts),
    validation: new ValidationLedger(state),
    monitoredDomains: new MonitoredDomainsStore(state),
    sendingDomains: new SendingDomainsStore(state, dns, events),
    outbox: new Outbox(state),
    sendKeys: new IdempotencyKeys<unknown, SendAnswer>(state, 'sendKeys.answers'),
    campaigns: new CampaignsStore(state),
    abTests: new AbTestsStore(state),
    tracking: new TrackingStore(state),
    templates: new TemplatesStore(state),
    automations: new AutomationsStore(state),
    channels: new ChannelLog(state),
    infrastructure: new InfrastructureStore(state),
    engagement: new EngagementLog(state),
    webhooks: new WebhooksStore(state),
    providerLog: new ProviderLog(state),
    notifications: new NotificationsStore(state),
    referrals: new ReferralsStore(state),
  };
  const delivery = new Delivery(clock, events, options.relay ?? relayFromEnv(), options.trackingBaseUrl ?? trackingBaseUrlFromEnv());
  const campaignRuns = new CampaignRuns({ clock, ...stores, delivery, events, content: campaignContent(stores.templates) });
  const fitsQuota = (userId: string, recipients: number) => overQuota(identity, stores.outbox, userId, recipients) === undefined;
  const automationRuns = new AutomationRuns({ clock, state, ...stores, delivery, events, fitsQuota });
  const deps: MailDeps = {
    identity,
    clock,
    ...stores,
    campaignRuns,
    automationRuns,
    dns,
    events,
    delivery,
    sso: ssoVerifier(options.sso ?? ssoConfigFromEnv(), clock),
    usage: (userId) => ({ contacts: contacts.count(userId), monitored_domains: stores.monitoredDomains.count(userId), emails_this_month: stores.outbox.sentThisMonth(userId) }),
  };
  const inboundMail = new InboundMail(state, stores.infrastructure.inbound, stores.webhooks);
  const oauth = new OAuthState(state);
  const handlers = {
    ...identityHandlers(deps),
    ...oauthHandlers(deps, oauth),
    ...contactHandlers(deps),
    ...segmentHandlers(deps),
    ...validationHandlers(deps),
    ...dmarcHandlers(deps),
    ...domainHandlers(deps),
    ...sendHandlers(deps),
    ...campaignHandlers(deps),
    ...abTestHandlers(deps),
    ...automationHandlers(deps),
    ...trackingHandlers(deps),
    ...webhookHandlers(deps),
    ...providerHandlers(deps),
    ...notificationHandlers(deps),
    ...referralHandlers(deps),
    ...analyticsHandlers(deps),
    ...templateHandlers(deps),
    ...channelHandlers(deps),
    ...infrastructureHandlers(deps),
  } satisfies Partial<MailHandlers>;
  const app = createStubApp<operations, MailPrincipal, operationDefaults, StateStore>({ ...options, clock }, {
    slug: 'mail',
    handlers,
    security: mailSecurity(secrets, identity),
    errors: mailErrors,
    // Mail server B signs the exact bytes of its request (X-Postal-Signature).
    rawBody: ['receiveMailServerBEvent'],
    state,
    // Adapters tests inject are not state: a reset puts them back beside it.
    reset: () => stores.channels.resetAdapters(),
  });
  const runDue = async () => {
    await stores.sendingDomains.runDue();
    await campaignRuns.runDue((campaign, recipients) => fitsQuota(campaign.userId, recipients));
    await automationRuns.runDue();
    await stores.webhooks.runDue();
    await delivery.settled();
  };
  // Queued retries and hand-overs in flight belong to the state they were started from.
  state.onReplaced(() => {
    stores.webhooks.dropQueuedWork();
    campaignRuns.dropInFlight();
  });
  return { ...app, identity, ...stores, events, delivery, runDue, close: () => delivery.close(), inboundMail, controls: { inbound: (raw: string) => inboundMail.receive(raw) } };
}

/** Where delivered copies' pixel and tracked links point: `MAIL_TRACKING_URL`, else this machine's `npm start`. */
function trackingBaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return (env.MAIL_TRACKING_URL ?? `http://localhost:${env.PORT ?? 4000}/mail`).replace(/\/$/, '');
}

/** Campaign bodies from the templates part, personalized per recipient with the same fenced engine. */
function campaignContent(templates: TemplatesStore): CampaignContent {
  return {
    template: (userId, id) => templates.get(userId, id),
    personalize: personalized,
  };
}

/** The provider and internal secrets, as their senders present them (test defaults unless set in the environment). */
function providerCredentials(secrets: ProviderSecrets): StubCredential[] {
  return [
    { label: 'Feedback loop (FBL_WEBHOOK_SECRET)', scheme: 'fblSecretHeader', value: secrets.fbl },
    { label: 'Feedback loop, as a bearer (FBL_WEBHOOK_SECRET)', scheme: 'fblBearer', value: secrets.fbl },
    { label: 'Mail server A (INBOUND_WEBHOOK_SECRET)', scheme: 'inboundSecret', value: secrets.inbound },
    { label: 'Internal (INTERNAL_SECRET)', scheme: 'internalSecret', value: secrets.internal },
    // No fixed value passes: the signature covers each body (sign with POSTAL_PUBLIC_KEY's private half; test default in providers/postal-test-keys.ts).
    {
      label: 'Mail server B (from an allowlisted address, POSTAL_ALLOWED_IPS): X-Postal-Signature, base64 RSA-SHA1 of the raw body; this value is refused',
      scheme: 'postalSignature',
      value: 'not-a-signature',
      valid: false,
    },
  ];
}

export default stubService<MailAppOptions>({
  slug: 'mail',
  title: 'Mail (every operation; received mail enters through POST /_stub/mail/inbound)',
  credentials: [...mailCredentials, ...providerCredentials(providerSecretsFromEnv())],
  errors: mailErrors,
  create: (options) => createMailApp(options),
});
