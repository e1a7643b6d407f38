import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
import { recipientOf, type ContactRecord, type ContactsStore } from '../audience/contacts-store.js';
import { personalized } from '../campaigns/personalize.js';
import type { TemplatesStore } from '../content/templates-store.js';
import type { MailEventBus } from '../events.js';
import type { Delivery } from '../sending/delivery.js';
import type { Outbox } from '../sending/outbox.js';
import type { AutomationRecord, AutomationsStore, AutomationTrigger, Enrolment } from './automations-store.js';

export interface AutomationRunDeps {
  clock: Clock;
  state: StateStore;
  automations: AutomationsStore;
  contacts: ContactsStore;
  templates: TemplatesStore;
  outbox: Outbox;
  delivery: Delivery;
  events: MailEventBus;
  /** whether `recipients` more mail fit the user's monthly quota now */
  fitsQuota: (userId: string, recipients: number) => boolean;
}

const day = 86_400_000;

/** The instant a date value stands for: `YYYY-MM-DD` (midnight UTC) or an ISO date-time; undefined for anything else. */
function dateOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}($|T)/.test(value)) return undefined;
  const at = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(at) ? undefined : at;
}

/** The value of a date trigger's `field`: `created_at`, `updated_at` or `custom_fields.<key>`. */
function fieldValue(contact: ContactRecord, field: string): unknown {
  if (field === 'created_at') return new Date(contact.createdAt).toISOString();
  if (field === 'updated_at') return new Date(contact.updatedAt).toISOString();
  if (field.startsWith('custom_fields.')) return contact.customFields[field.slice('custom_fields.'.length)];
  return undefined;
}

/**
 * Runs automations: the bus enrols contacts into active automations whose trigger matches (a
 * contact created, a tag added, a custom event tracked); the stub clock enrols those whose date
 * field is reached and resumes contacts whose `wait` is over. Steps run in order; a paused
 * automation holds its contacts where they are until it is active again.
 */
export class AutomationRuns {
  /** per date-triggered automation, the instant up to which dates were looked at */
  private readonly datesCheckedUntil: Collection<{ at: number }>;

  constructor(private deps: AutomationRunDeps) {
    const { events, automations } = deps;
    this.datesCheckedUntil = deps.state.collection('automations.datesCheckedUntil');
    events.on('contact.created', ({ userId, contactId }) => this.enrolWhere(userId, contactId, (t) => t.type === 'contact_created'));
    events.on('contact.tag_added', ({ userId, contactId, tags }) => this.enrolWhere(userId, contactId, (t) => t.type === 'tag_added' && tags.includes(t.tag)));
    events.on('contact.event_tracked', ({ userId, contactId, event }) => this.enrolWhere(userId, contactId, (t) => t.type === 'event' && t.event_name === event));
    events.on('contact.deleted', ({ contactId }) => automations.dropContact(contactId));
  }

  /** An automation became active: dates are looked at from now on, and contacts it held go on at the next run. */
  activated(automation: AutomationRecord): void {
    this.datesCheckedUntil.set(automation.id, { at: this.deps.clock.now() });
    for (const enrolment of this.deps.automations.enrolmentsOf(automation.id)) enrolment.resumeAt ??= this.deps.clock.now();
  }

  async runDue(): Promise<void> {
    const { automations, contacts, clock } = this.deps;
    const now = clock.now();
    for (const automation of automations.active()) {
      const trigger = automation.trigger;
      if (trigger.type !== 'date_field') continue;
      const since = this.datesCheckedUntil.get(automation.id)?.at ?? now;
      this.datesCheckedUntil.set(automation.id, { at: now });
      for (const contact of contacts.of(automation.userId)) {
        const date = dateOf(fieldValue(contact, trigger.field));
        if (date === undefined) continue;
        const reachedAt = date + (trigger.offset_days ?? 0) * day;
        if (reachedAt > since && reachedAt <= now) this.start(automation, contact.id, new Date(reachedAt).toISOString());
      }
    }
    for (const enrolment of automations.dueEnrolments()) {
      if (automations.get(enrolment.userId, enrolment.automationId)?.status !== 'active') continue;
      enrolment.resumeAt = null;
      await this.advance(enrolment);
    }
  }

  private enrolWhere(userId: string, contactId: string, matches: (trigger: AutomationTrigger) => boolean): void {
    for (const automation of this.deps.automations.of(userId)) if (automation.status === 'active' && matches(automation.trigger)) this.start(automation, contactId);
  }

  private start(automation: AutomationRecord, contactId: string, cause?: string): void {
    const enrolment = this.deps.automations.enrol(automation, contactId, cause);
    // Steps run after the answer that caused them; `POST /_stub/clock` and tests wait through the delivery queue.
    // A failing step is logged; unhandled, its rejection would end the stub process.
    if (enrolment) {
      this.deps.delivery
        .track(this.advance(enrolment))
        .catch((error: unknown) => console.error(`[mail] automation ${automation.id}: a step failed`, error));
    }
  }

  /** Runs steps from where the contact is until a `wait`, a pause or the end. */
  private async advance(enrolment: Enrolment): Promise<void> {
    const { automations, contacts, clock } = this.deps;
    for (;;) {
      const automation = automations.get(enrolment.userId, enrolment.automationId);
      const contact = contacts.get(enrolment.userId, enrolment.contactId);
      if (!automation || !contact) return automations.finish(enrolment);
      if (automation.status !== 'active') {
        enrolment.resumeAt = clock.now(); // held; goes on once the automation is active again
        return;
      }
      const step = automation.steps[enrolment.step];
      if (!step) return automations.finish(enrolment);
      enrolment.step++;
      switch (step.type) {
        case 'wait':
          enrolment.resumeAt = clock.now() + step.duration_minutes * 60_000;
          return;
        case 'add_tag':
          if (!contact.tags.includes(step.tag)) contacts.update(contact, { tags: [...contact.tags, step.tag] });
          break;
        case 'remove_tag':
          if (contact.tags.includes(step.tag)) contacts.update(contact, { tags: contact.tags.filter((t) => t !== step.tag) });
          break;
        case 'send_email':
          await this.send(contact, step);
          break;
      }
    }
  }

  /**
   * One email of a `send_email` step. A contact no longer subscribed or on the suppression list, a
   * template deleted meanwhile, or a month's quota reached skips the email and goes on (designed).
   */
  private async send(contact: ContactRecord, step: Extract<AutomationRecord['steps'][number], { type: 'send_email' }>): Promise<void> {
    const { templates, outbox, delivery, contacts, fitsQuota } = this.deps;
    const template = templates.get(contact.userId, step.template_id);
    if (!template || !contacts.mailable(contact) || !fitsQuota(contact.userId, 1)) return;
    const copy = await personalized(template, contact);
    if ('error' in copy) return;
    const message = outbox.add({ userId: contact.userId, from: step.from, to: [recipientOf(contact)], ...copy, sandbox: false, campaignId: null, variantId: null });
    await delivery.dispatch(message);
  }
}
