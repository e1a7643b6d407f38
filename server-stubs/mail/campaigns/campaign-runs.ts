import type { Clock } from '../../lib/clock.js';
import { recipientOf, type ContactRecord, type ContactsStore } from '../audience/contacts-store.js';
import type { SegmentsStore } from '../audience/segments-store.js';
import type { MailEventBus } from '../events.js';
import type { Delivery } from '../sending/delivery.js';
import type { Outbox } from '../sending/outbox.js';
import type { EngagementLog } from '../tracking/engagement-log.js';
import type { AbTestRecord, AbTestsStore, VariantRecord } from './ab-tests-store.js';
import type { CampaignRecord, CampaignsStore } from './campaigns-store.js';

/** The parts of one message before and after a recipient's values are put in. */
export interface MessageParts {
  subject: string;
  html: string | null;
  text: string | null;
}

/** Where a campaign's `template_id` is looked up (the templates part), and how one recipient's copy is written (or why it cannot be). */
export interface CampaignContent {
  template(userId: string, id: string): MessageParts | undefined;
  personalize(parts: MessageParts, contact: ContactRecord): Promise<MessageParts | { error: string }>;
}

export interface CampaignRunDeps {
  clock: Clock;
  campaigns: CampaignsStore;
  abTests: AbTestsStore;
  segments: SegmentsStore;
  contacts: ContactsStore;
  outbox: Outbox;
  engagement: EngagementLog;
  delivery: Delivery;
  events: MailEventBus;
  content: CampaignContent;
}

const hour = 3_600_000;

/**
 * A campaign's way from `draft` to `sent`: who it goes to (the subscribed, unsuppressed members of
 * its segment, a dynamic segment evaluated afresh), one personalized copy per recipient in the
 * outbox, `campaign.sent` when sending starts and `campaign.completed` once every copy was handed
 * over. Scheduled campaigns start when the stub clock reaches their time. A campaign with an A/B
 * test first sends its variants to the test group, then the winner to everyone else.
 */
export class CampaignRuns {
  /** hand-overs of each campaign still sending, so completion waits for all of them */
  private inFlight = new Map<string, Promise<void>[]>();

  constructor(private deps: CampaignRunDeps) {}

  /** Forgets the hand-overs in flight (work of a state a reset or restore replaced, not state itself). */
  dropInFlight(): void {
    this.inFlight.clear();
  }

  templateExists(userId: string, id: string): boolean {
    return this.deps.content.template(userId, id) !== undefined;
  }

  /** Why the campaign cannot be sent as it is (the send's 422), or undefined. */
  unsendable(campaign: CampaignRecord): string | undefined {
    if (campaign.segmentId === null) return 'Campaign has no segment';
    if (!this.deps.segments.get(campaign.userId, campaign.segmentId)) return 'Segment not found';
    if (campaign.templateId !== null) return this.templateExists(campaign.userId, campaign.templateId) ? undefined : 'Template not found';
    if (campaign.html === null && campaign.text === null) return 'Campaign has no body';
    return undefined;
  }

  /** The contacts the campaign goes to if it started now; a dynamic segment is evaluated afresh first. */
  recipientsOf(campaign: CampaignRecord): ContactRecord[] {
    const { segments } = this.deps;
    const segment = campaign.segmentId === null ? undefined : segments.get(campaign.userId, campaign.segmentId);
    if (!segment) return [];
    if (segment.type === 'dynamic' && segment.source === 'own') segments.refresh(segment);
    return this.reachable(campaign.userId, [...segment.members]);
  }

  schedule(campaign: CampaignRecord, at: number, sandbox: boolean): void {
    this.deps.campaigns.update(campaign, { status: 'scheduled' });
    campaign.scheduledAt = at;
    campaign.sandbox = sandbox;
  }

  /**
   * Starts sending now. With `sandbox` the copies are captured, not delivered; the status changes
   * are announced all the same, marked as the sandbox's (in-app notifications follow them, webhook
   * events do not). With an A/B test only the test group gets copies now (`finishTest` sends the rest).
   */
  async start(campaign: CampaignRecord, sandbox: boolean, recipients = this.recipientsOf(campaign)): Promise<void> {
    const { campaigns, abTests, events, clock } = this.deps;
    campaigns.update(campaign, { status: 'sending' });
    campaign.sentAt = clock.now();
    campaign.sandbox = sandbox;
    campaign.recipients = recipients.length;
    events.emit('campaign.sent', { userId: campaign.userId, campaignId: campaign.id, recipients: recipients.length, sandbox });
    const test = abTests.ofCampaign(campaign.id);
    if (!test) {
      await this.copies(campaign, recipients, null);
      this.completeWhenHandedOver(campaign);
      return;
    }
    const { groups, rest } = testGroups(recipients, test);
    for (const [i, variant] of test.variants.entries()) await this.copies(campaign, groups[i]!, variant);
    test.status = 'running';
    test.heldBack = rest.map((c) => c.id);
    test.decideAt = clock.now() + test.durationHours * hour;
  }

  /** Picks the winner (the given one, or the best by the test's criteria) and sends it to the recipients held back. */
  async finishTest(test: AbTestRecord, winnerId = this.bestVariant(test).id): Promise<void> {
    const campaign = this.deps.campaigns.get(test.userId, test.campaignId);
    test.status = 'completed';
    test.winnerVariantId = winnerId;
    test.winnerSelectedAt = this.deps.clock.now();
    if (!campaign) return;
    const winner = test.variants.find((v) => v.id === winnerId)!;
    await this.copies(campaign, this.reachable(campaign.userId, test.heldBack), winner, false);
    test.heldBack = [];
    this.completeWhenHandedOver(campaign);
  }

  /** Results of a variant so far: its copies in the test group, and how many were opened and clicked. */
  variantResults(test: AbTestRecord, variant: VariantRecord) {
    const { outbox, engagement } = this.deps;
    const copies = outbox.ofCampaign(test.campaignId).filter((m) => m.variantId === variant.id);
    const sent = copies.length;
    const opened = copies.filter((m) => engagement.openedAt(m.id) !== undefined).length;
    const clicked = copies.filter((m) => engagement.clickedAt(m.id) !== undefined).length;
    const rate = (n: number) => (sent === 0 ? 0 : n / sent);
    return { sent, opened, clicked, open_rate: rate(opened), click_rate: rate(clicked) };
  }

  /**
   * Work that fell due on the stub clock: scheduled campaigns start (one that can no longer be sent,
   * or no longer fits the month's quota, is cancelled instead) and running tests pick their winner.
   */
  async runDue(fitsQuota: (campaign: CampaignRecord, recipients: number) => boolean): Promise<void> {
    for (const campaign of this.deps.campaigns.due()) {
      const recipients = this.unsendable(campaign) === undefined ? this.recipientsOf(campaign) : undefined;
      if (!recipients || (!campaign.sandbox && !fitsQuota(campaign, recipients.length))) {
        this.deps.campaigns.update(campaign, { status: 'cancelled' });
        continue;
      }
      await this.start(campaign, campaign.sandbox, recipients);
    }
    for (const test of this.deps.abTests.due()) await this.finishTest(test);
  }

  /** The best variant by the test's criteria; a tie goes to the earlier variant. */
  private bestVariant(test: AbTestRecord): VariantRecord {
    const score = (v: VariantRecord) => this.variantResults(test, v)[test.winnerCriteria];
    return test.variants.reduce((best, v) => (score(v) > score(best) ? v : best));
  }

  /** Contacts (by id) still subscribed and not suppressed. */
  private reachable(userId: string, ids: string[]): ContactRecord[] {
    const { contacts } = this.deps;
    return ids.map((id) => contacts.get(userId, id)).filter((c): c is ContactRecord => c !== undefined && contacts.mailable(c));
  }

  /**
   * One personalized copy per contact, of the campaign or of a variant; `inTestGroup` marks the
   * copies as the variant's results. A copy that cannot be written (a render limit) is recorded failed.
   */
  private async copies(campaign: CampaignRecord, contacts: ContactRecord[], variant: VariantRecord | null, inTestGroup = true): Promise<void> {
    const { outbox, delivery, content } = this.deps;
    const body = campaign.templateId === null ? { html: campaign.html, text: campaign.text } : content.template(campaign.userId, campaign.templateId)!;
    const parts: MessageParts = { subject: variant?.subject ?? campaign.subject, html: variant?.html ?? body.html, text: body.text };
    const handOvers = this.inFlight.get(campaign.id) ?? [];
    this.inFlight.set(campaign.id, handOvers);
    for (const contact of contacts) {
      const copy = await content.personalize(parts, contact);
      const to = [recipientOf(contact)];
      const written = 'error' in copy ? parts : copy;
      const message = outbox.add({ userId: campaign.userId, from: campaign.from, to, ...written, sandbox: campaign.sandbox, campaignId: campaign.id, variantId: inTestGroup ? (variant?.id ?? null) : null });
      if ('error' in copy) {
        message.status = 'failed';
        message.error = copy.error;
      } else if (!campaign.sandbox) handOvers.push(delivery.dispatch(message));
    }
  }

  /** `sent` once every copy made so far was handed over (or captured, in the sandbox), then `campaign.completed`. */
  private completeWhenHandedOver(campaign: CampaignRecord): void {
    const { campaigns, outbox, events, delivery } = this.deps;
    const handOvers = this.inFlight.get(campaign.id) ?? [];
    this.inFlight.delete(campaign.id);
    // Nobody awaits this but `settled()`: a throw here (an event listener) must be logged, not
    // become an unhandled rejection that ends the stub process.
    delivery
      .track(
        Promise.all(handOvers).then(() => {
          campaigns.update(campaign, { status: 'sent' });
          const copies = outbox.ofCampaign(campaign.id);
          const delivered = copies.filter((m) => m.status === 'delivered').length;
          const failed = copies.filter((m) => m.status === 'failed').length;
          const { sandbox } = campaign;
          events.emit('campaign.completed', {
            userId: campaign.userId,
            campaignId: campaign.id,
            delivered,
            failed: sandbox ? failed : copies.length - delivered,
            sandbox,
            captured: sandbox ? copies.length - failed : 0,
          });
        }),
      )
      .catch((error: unknown) => console.error(`[mail] campaign ${campaign.id}: completing it failed`, error));
  }
}

/**
 * The test group (`test_size_percent` of the recipients, rounded, at least one per variant when
 * there are enough) dealt round-robin to the variants, and the rest held back for the winner.
 */
function testGroups(recipients: ContactRecord[], test: AbTestRecord): { groups: ContactRecord[][]; rest: ContactRecord[] } {
  const size = Math.min(recipients.length, Math.max(test.variants.length, Math.round((recipients.length * test.testSizePercent) / 100)));
  const groups: ContactRecord[][] = test.variants.map(() => []);
  recipients.slice(0, size).forEach((contact, i) => groups[i % groups.length]!.push(contact));
  return { groups, rest: recipients.slice(size) };
}
