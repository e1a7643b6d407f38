import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export type AutomationTrigger = components['schemas']['AutomationTrigger'];
export type AutomationStep = components['schemas']['AutomationStep'];
export type AutomationStatus = components['schemas']['Automation']['status'];

export interface AutomationRecord {
  id: string;
  userId: string;
  name: string;
  trigger: AutomationTrigger;
  steps: AutomationStep[];
  status: AutomationStatus;
  createdAt: number;
  updatedAt: number;
}

/** A contact's way through an automation: the step it is at, and when a `wait` lets it go on. */
export interface Enrolment {
  automationId: string;
  userId: string;
  contactId: string;
  step: number;
  resumeAt: number | null;
  /** what started it: for a date trigger the date reached, so the same date enrols once */
  cause: string;
}

const enrolmentKey = (automationId: string, contactId: string) => JSON.stringify([automationId, contactId]);

/** Automations per user and the contacts going through them (a contact is in an automation at most once at a time). */
export class AutomationsStore {
  private readonly clock: Clock;
  private readonly automations: Collection<AutomationRecord>;
  /** by `[automation, contact]`, in the order they enrolled */
  private readonly enrolments: Collection<Enrolment>;
  /** by `[automation, contact, cause]`: date-trigger causes already enrolled */
  private readonly reached: Collection<{ automationId: string; contactId: string; cause: string }>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.automations = state.collection('automations.automations', { tenantOf: (a) => a.userId, createdAtOf: (a) => a.createdAt });
    this.enrolments = state.collection('automations.enrolments');
    this.reached = state.collection('automations.reachedDates');
  }

  /** The user's automations, newest first. */
  of(userId: string): AutomationRecord[] {
    return this.automations.newest(userId);
  }

  get(userId: string, id: string): AutomationRecord | undefined {
    return this.automations.ownedBy(userId, id);
  }

  /** Every active automation, of every user: what the clock checks date triggers of. */
  active(): AutomationRecord[] {
    return this.automations.filter((a) => a.status === 'active');
  }

  create(userId: string, fields: Pick<AutomationRecord, 'name' | 'trigger' | 'steps' | 'status'>): AutomationRecord {
    const now = this.clock.now();
    const record: AutomationRecord = { id: randomUUID(), userId, ...fields, createdAt: now, updatedAt: now };
    this.automations.set(record.id, record);
    return record;
  }

  update(record: AutomationRecord, fields: Partial<Pick<AutomationRecord, 'name' | 'trigger' | 'steps' | 'status'>>): AutomationRecord {
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
    record.updatedAt = this.clock.now();
    return record;
  }

  /** Enrols the contact unless it is in the automation already (or, for a date trigger, was for this date). */
  enrol(automation: AutomationRecord, contactId: string, cause = ''): Enrolment | undefined {
    const key = enrolmentKey(automation.id, contactId);
    if (this.enrolments.has(key)) return undefined;
    if (cause) {
      const reachedKey = JSON.stringify([automation.id, contactId, cause]);
      if (this.reached.has(reachedKey)) return undefined;
      this.reached.set(reachedKey, { automationId: automation.id, contactId, cause });
    }
    const enrolment: Enrolment = { automationId: automation.id, userId: automation.userId, contactId, step: 0, resumeAt: null, cause };
    return this.enrolments.set(key, enrolment);
  }

  finish(enrolment: Enrolment): void {
    const key = enrolmentKey(enrolment.automationId, enrolment.contactId);
    if (this.enrolments.get(key) === enrolment) this.enrolments.delete(key);
  }

  /** Enrolments waiting on a `wait` step that has ended. */
  dueEnrolments(): Enrolment[] {
    const now = this.clock.now();
    return this.enrolments.filter((e) => e.resumeAt !== null && e.resumeAt <= now);
  }

  enrolmentsOf(automationId: string): Enrolment[] {
    return this.enrolments.filter((e) => e.automationId === automationId);
  }

  /** A deleted contact leaves every automation. */
  dropContact(contactId: string): void {
    for (const e of this.enrolments.filter((e) => e.contactId === contactId)) this.enrolments.delete(enrolmentKey(e.automationId, e.contactId));
  }
}
