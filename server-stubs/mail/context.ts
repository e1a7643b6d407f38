import type { components, operationDefaults, operations } from '../../generated/mail/types.gen.js';
import type { Clock } from '../lib/clock.js';
import type { RecordResolver } from '../lib/dns-records.js';
import { handlersFor, type HandlerMap } from '../lib/handlers.js';
import type { ContactsStore } from './audience/contacts-store.js';
import type { TrackingStore } from './analytics/tracking-store.js';
import type { SegmentsStore } from './audience/segments-store.js';
import type { AutomationRuns } from './automations/automation-runs.js';
import type { AutomationsStore } from './automations/automations-store.js';
import type { AbTestsStore } from './campaigns/ab-tests-store.js';
import type { CampaignRuns } from './campaigns/campaign-runs.js';
import type { CampaignsStore } from './campaigns/campaigns-store.js';
import type { MailPrincipal } from './auth.js';
import type { MonitoredDomainsStore } from './deliverability/monitored-domains-store.js';
import type { SendingDomainsStore } from './deliverability/sending-domains-store.js';
import type { ValidationLedger } from './deliverability/validation-ledger.js';
import type { ChannelLog } from './channels/channel-log.js';
import type { TemplatesStore } from './content/templates-store.js';
import type { MailEventBus } from './events.js';
import type { NotificationsStore } from './notifications/notifications-store.js';
import type { ProviderLog } from './providers/provider-log.js';
import type { ReferralsStore } from './referrals/referrals-store.js';
import type { EngagementLog } from './tracking/engagement-log.js';
import type { WebhooksStore } from './webhooks/webhooks-store.js';
import type { InfrastructureStore } from './infrastructure/infrastructure-store.js';
import type { Delivery } from './sending/delivery.js';
import type { IdempotencyKeys } from './sending/idempotency.js';
import type { Outbox } from './sending/outbox.js';
import type { SsoVerifier } from './identity/sso.js';
import type { IdentityStore } from './identity/store.js';

export type MailHandlers = HandlerMap<operations, MailPrincipal, operationDefaults>;

/** Each handler module's map, checked against the contract as it is written (`handlersFor`). */
export const mailHandlers = handlersFor<operations, MailPrincipal, operationDefaults>();

/** What every mail handler module gets: `mailHandlers(deps)` returns its part of the handler map. */
/** The answer of an accepted `POST /v1/send`, kept by idempotency key and given again to a retry. */
export type SendAnswer = { status: 200; body: components['schemas']['SendEmailResponse'] };

export interface MailDeps {
  identity: IdentityStore;
  clock: Clock;
  /** contacts per user and their suppression list */
  contacts: ContactsStore;
  /** segments per user over those contacts, with their membership rows */
  segments: SegmentsStore;
  /** validation credits per user */
  validation: ValidationLedger;
  /** DMARC-monitored domains per user */
  monitoredDomains: MonitoredDomainsStore;
  /** sending domains per user and their verification */
  sendingDomains: SendingDomainsStore;
  /** every accepted send, and the sandbox */
  outbox: Outbox;
  /** hands outbox messages to the relay and announces them */
  delivery: Delivery;
  /** the answers of accepted sends by idempotency key */
  sendKeys: IdempotencyKeys<unknown, SendAnswer>;
  /** custom events and purchases clients tracked */
  tracking: TrackingStore;
  /** campaigns per user */
  campaigns: CampaignsStore;
  /** A/B tests of campaigns */
  abTests: AbTestsStore;
  /** how campaigns are sent: recipients, copies, schedules */
  campaignRuns: CampaignRuns;
  /** automations per user and the contacts going through them */
  automations: AutomationsStore;
  /** how automations run: triggers, steps, waits */
  automationRuns: AutomationRuns;
  /** templates per user */
  templates: TemplatesStore;
  /** WhatsApp and push messages the channel adapters recorded */
  channels: ChannelLog;
  /** aliases, dedicated IPs and inbound routes per user */
  infrastructure: InfrastructureStore;
  /** first opens and clicks of delivered messages */
  engagement: EngagementLog;
  /** webhook endpoints, their delivery queue and attempt log */
  webhooks: WebhooksStore;
  /** what the provider webhooks recorded */
  providerLog: ProviderLog;
  /** in-app notifications per user */
  notifications: NotificationsStore;
  /** referral codes, referrals and milestone claims */
  referrals: ReferralsStore;
  /** MX, TXT and CNAME look-ups of validation, DMARC monitoring and sending domains */
  dns: RecordResolver;
  /** what parts announce (contact created, import done) for later parts to act on */
  events: MailEventBus;
  /** verifies the identity provider's sign-in tokens */
  sso: SsoVerifier;
  /** counts later parts keep (sends, contacts, monitored domains), shown by `GET /v1/plan-limits` */
  usage?: (userId: string) => Partial<Record<'emails_this_month' | 'contacts' | 'monitored_domains', number>>;
}
