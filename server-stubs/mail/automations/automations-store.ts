import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';

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

/** Automations per user and the contacts going through them (a contact is in an automation at most once at a time). */
export class AutomationsStore {
  private automations = new Map<string, AutomationRecord>();
  private enrolments: Enrolment[] = [];
  /** date-trigger causes already enrolled, per automation and contact */
  private reached = new Set<string>();

  constructor(private clock: Clock) {}

  reset(): void {
    this.automations.clear();
    this.enrolments = [];
    this.reached.clear();
  }

  /** The user's automations, newest first. */
  of(userId: string): AutomationRecord[] {
    return [...this.automations.values()].filter((a) => a.userId === userId).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
  }

  get(userId: string, id: string): AutomationRecord | undefined {
    const record = this.automations.get(id);
    return record?.userId === userId ? record : undefined;
  }

  /** Every active automation, of every user: what the clock checks date triggers of. */
  active(): AutomationRecord[] {
    return [...this.automations.values()].filter((a) => a.status === 'active');
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
    if (this.enrolments.some((e) => e.automationId === automation.id && e.contactId === contactId)) return undefined;
    if (cause) {
      const key = JSON.stringify([automation.id, contactId, cause]);
      if (this.reached.has(key)) return undefined;
      this.reached.add(key);
    }
    const enrolment: Enrolment = { automationId: automation.id, userId: automation.userId, contactId, step: 0, resumeAt: null, cause };
    this.enrolments.push(enrolment);
    return enrolment;
  }

  finish(enrolment: Enrolment): void {
    this.enrolments = this.enrolments.filter((e) => e !== enrolment);
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
    this.enrolments = this.enrolments.filter((e) => e.contactId !== contactId);
  }
}
