import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Cell, Collection, StateStore } from '../../lib/store.js';
import type { MailEventBus } from '../events.js';
import { DeliveryEngine, type DeliveryOutcome, type EngineSettings, type Tracker } from './delivery-engine.js';
import { connectPayloads, type FormAEventName, type FormBEventName, type Occurrence, type PayloadSources } from './payloads.js';

/** Published: Form B retries 1 to 5 follow a failed attempt after these delays. */
export const formBRetryDelaysMs = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000] as const;
/** Designed: the document gives Form A's 10 s; Form B's timeout is not published, so it is the same. */
export const deliveryTimeoutMs = 10_000;
/** Published: the attempts `GET /v1/webhooks/{id}/events` lists. */
export const attemptsListed = 100;
/** Published: a Form A endpoint is disabled after this many consecutive failures. */
export const formAFailureLimit = 10;
/** Designed: the Form A attempt log (every attempt, published) keeps the latest this many across endpoints. */
export const formALogLimit = 10_000;
/** Published: Form A signs only with a secret at least this long. */
export const formASigningMinimum = 16;

export interface FormBEndpoint {
  id: string;
  userId: string;
  url: string;
  events: FormBEventName[];
  secret: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface FormBAttempt {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: FormBEventName;
  /** 1 for the first attempt, 2 to 6 for the retries */
  attempt: number;
  status: 'succeeded' | 'retrying' | 'failed';
  outcome: DeliveryOutcome;
  attemptedAt: number;
  nextRetryAt: number | null;
}

export interface FormAEndpoint {
  id: string;
  userId: string;
  url: string;
  events: FormAEventName[];
  secret: string | null;
  enabled: boolean;
  consecutiveFailures: number;
  disabledAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Every Form A attempt, as the log keeps it. */
export interface FormAAttempt {
  webhookId: string;
  event: FormAEventName;
  signed: boolean;
  outcome: DeliveryOutcome;
  attemptedAt: number;
}

export interface WebhookSources extends Omit<PayloadSources, 'clock'> {
  events: MailEventBus;
  /** starts background work that the stub clock control and tests wait for (the app's `delivery.track`) */
  track: Tracker;
}

/**
 * Webhook endpoints (Form B of `/v1/webhooks`, and Form A of the dashboard), their deliveries
 * through one engine, the Form B retry queue on the stub clock and both forms' attempt logs.
 */
export class WebhooksStore {
  readonly engine: DeliveryEngine;
  private readonly clock: Clock;
  private readonly formB: Collection<FormBEndpoint>;
  /** by Form B endpoint id: its attempts, oldest first */
  private readonly formBAttempts: Collection<FormBAttempt[]>;
  private readonly formA: Collection<FormAEndpoint>;
  private readonly formALog: Cell<FormAAttempt[]>;
  private connected = false;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.engine = new DeliveryEngine(state.clock);
    this.formB = state.collection('webhooks.formB', { tenantOf: (e) => e.userId });
    this.formBAttempts = state.collection('webhooks.formBAttempts');
    this.formA = state.collection('webhooks.formA', { tenantOf: (e) => e.userId });
    this.formALog = state.cell('webhooks.formALog', () => []);
  }

  /** Subscribes to the bus (once): what happens from now on is delivered to the endpoints. */
  connect(sources: WebhookSources): void {
    if (this.connected) return;
    this.connected = true;
    this.engine.trackWith(sources.track);
    connectPayloads(sources.events, { ...sources, clock: this.clock }, (o) => this.occurred(o));
  }

  /** The engine's resolver, loopback permission and timeout (tests and development settings). */
  configure(settings: Partial<EngineSettings>): void {
    this.engine.configure(settings);
  }

  /** Drops the queued retries (the app's reset): they are work in progress, not state. */
  dropQueuedWork(): void {
    this.engine.reset();
  }

  /** Delivers what fell due on the stub clock (retries); `POST /_stub/clock` waits for it. */
  async runDue(): Promise<void> {
    await this.engine.runDue();
  }

  // Form B endpoints

  formBOf(userId: string): FormBEndpoint[] {
    return this.formB.of(userId);
  }

  getFormB(userId: string, id: string): FormBEndpoint | undefined {
    return this.formB.ownedBy(userId, id);
  }

  createFormB(userId: string, fields: Pick<FormBEndpoint, 'url' | 'events' | 'secret'>): FormBEndpoint {
    const now = this.clock.now();
    const endpoint: FormBEndpoint = { id: randomUUID(), userId, ...fields, events: [...fields.events], enabled: true, createdAt: now, updatedAt: now };
    this.formB.set(endpoint.id, endpoint);
    this.formBAttempts.set(endpoint.id, []);
    return endpoint;
  }

  updateFormB(endpoint: FormBEndpoint, fields: Partial<Pick<FormBEndpoint, 'url' | 'events' | 'secret' | 'enabled'>>): FormBEndpoint {
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) Object.assign(endpoint, { [key]: value });
    endpoint.updatedAt = this.clock.now();
    return endpoint;
  }

  deleteFormB(userId: string, id: string): boolean {
    if (!this.getFormB(userId, id)) return false;
    this.formB.delete(id);
    this.formBAttempts.delete(id);
    return true;
  }

  /** The endpoint's attempts, newest first (at most `attemptsListed`). */
  attemptsOf(id: string): FormBAttempt[] {
    return [...(this.formBAttempts.get(id) ?? [])].reverse();
  }

  // Form A endpoints

  formAOf(userId: string): FormAEndpoint[] {
    return this.formA.of(userId);
  }

  getFormA(userId: string, id: string): FormAEndpoint | undefined {
    return this.formA.ownedBy(userId, id);
  }

  createFormA(userId: string, fields: Pick<FormAEndpoint, 'url' | 'events' | 'secret'>): FormAEndpoint {
    const now = this.clock.now();
    const endpoint: FormAEndpoint = {
      id: randomUUID(),
      userId,
      ...fields,
      events: [...fields.events],
      enabled: true,
      consecutiveFailures: 0,
      disabledAt: null,
      lastAttemptAt: null,
      lastStatusCode: null,
      createdAt: now,
      updatedAt: now,
    };
    this.formA.set(endpoint.id, endpoint);
    return endpoint;
  }

  updateFormA(endpoint: FormAEndpoint, fields: Partial<Pick<FormAEndpoint, 'url' | 'events' | 'secret'>>): FormAEndpoint {
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) Object.assign(endpoint, { [key]: value });
    endpoint.updatedAt = this.clock.now();
    return endpoint;
  }

  deleteFormA(userId: string, id: string): boolean {
    if (!this.getFormA(userId, id)) return false;
    this.formA.delete(id);
    return true;
  }

  /** Enabled with a clean failure count, whether it was disabled or only failing. */
  enableFormA(endpoint: FormAEndpoint): FormAEndpoint {
    Object.assign(endpoint, { enabled: true, consecutiveFailures: 0, disabledAt: null, updatedAt: this.clock.now() });
    return endpoint;
  }

  /** Every Form A attempt of the endpoint, oldest first. */
  /** The signing secret set in the dashboard: the newest Form A endpoint's that has one (inbound routes without their own use it). */
  dashboardSigningSecret(userId: string): string | undefined {
    return this.formAOf(userId).find((e) => e.secret !== null)?.secret ?? undefined;
  }

  formALogOf(id: string): FormAAttempt[] {
    return this.formALog.get().filter((a) => a.webhookId === id);
  }

  // Delivery

  private occurred(o: Occurrence): void {
    const createdAt = new Date(this.clock.now()).toISOString();
    if (o.formB) {
      const { type, data } = o.formB;
      const receivers = this.formBOf(o.userId).filter((e) => e.enabled && e.events.includes(type));
      if (receivers.length > 0) {
        const eventId = randomUUID();
        // One raw body for every endpoint and every retry: what was signed is what is posted.
        const body = JSON.stringify({ id: eventId, type, createdAt, data });
        for (const endpoint of receivers) this.engine.soon(() => this.attemptFormB(endpoint.id, eventId, type, body, 1));
      }
    }
    if (o.formA) {
      const { event, data } = o.formA;
      const body = JSON.stringify({ event, timestamp: createdAt, data });
      for (const endpoint of this.formAOf(o.userId).filter((e) => e.enabled && e.events.includes(event))) this.engine.soon(() => this.attemptFormA(endpoint.id, event, body));
    }
  }

  private async attemptFormB(webhookId: string, eventId: string, eventType: FormBEventName, body: string, attempt: number): Promise<void> {
    const endpoint = this.formB.get(webhookId);
    // A deleted or paused endpoint drops the event's remaining retries.
    if (!endpoint || !endpoint.enabled) return;
    const outcome = await this.engine.post({ url: endpoint.url, body, eventName: eventType, secret: endpoint.secret, timeoutMs: deliveryTimeoutMs });
    const attemptedAt = this.clock.now();
    const delay = formBRetryDelaysMs[attempt - 1];
    const nextRetryAt = outcome.ok || delay === undefined ? null : attemptedAt + delay;
    const status = outcome.ok ? 'succeeded' : nextRetryAt === null ? 'failed' : 'retrying';
    const log = this.formBAttempts.get(webhookId);
    if (!log) return; // deleted while the POST was under way
    log.push({ id: randomUUID(), webhookId, eventId, eventType, attempt, status, outcome, attemptedAt, nextRetryAt });
    if (log.length > attemptsListed) log.splice(0, log.length - attemptsListed);
    if (nextRetryAt !== null) this.engine.schedule(nextRetryAt, () => this.attemptFormB(webhookId, eventId, eventType, body, attempt + 1));
  }

  private async attemptFormA(webhookId: string, event: FormAEventName, body: string): Promise<void> {
    const endpoint = this.formA.get(webhookId);
    if (!endpoint || !endpoint.enabled) return;
    const signed = endpoint.secret !== null && endpoint.secret.length >= formASigningMinimum;
    const outcome = await this.engine.post({ url: endpoint.url, body, eventName: event, ...(signed && { secret: endpoint.secret! }), timeoutMs: deliveryTimeoutMs });
    const now = this.clock.now();
    const formALog = this.formALog.get();
    formALog.push({ webhookId, event, signed, outcome, attemptedAt: now });
    if (formALog.length > formALogLimit) formALog.splice(0, formALog.length - formALogLimit);
    if (!this.formA.has(webhookId)) return;
    endpoint.lastAttemptAt = now;
    endpoint.lastStatusCode = outcome.statusCode;
    if (outcome.ok) {
      endpoint.consecutiveFailures = 0;
      return;
    }
    endpoint.consecutiveFailures += 1;
    if (endpoint.enabled && endpoint.consecutiveFailures >= formAFailureLimit) Object.assign(endpoint, { enabled: false, disabledAt: now, updatedAt: now });
  }
}
