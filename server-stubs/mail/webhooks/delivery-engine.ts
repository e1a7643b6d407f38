import { createHmac } from 'node:crypto';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import type { Clock } from '../../lib/clock.js';
import { isIP } from 'node:net';
import { allowLoopbackFromEnv, BlockedDestination, createResolver, guardedAddresses, isBlockedAddress, type Resolver } from '../../lib/net-guard.js';

/** What one POST to an endpoint came to; `ok` is a 2xx answer. */
export interface DeliveryOutcome {
  ok: boolean;
  statusCode: number | null;
  /** the answer's body, cut to `responseBodyLimit` characters; null without an answer */
  responseBody: string | null;
  /** null when no request left (the guard refused, the connection failed) */
  durationMs: number | null;
  /** why there was no answer (refused by the guard, unreachable, timed out) */
  error: string | null;
}

export interface DeliveryRequest {
  url: string;
  /** the raw JSON body, posted as it is and signed as it is */
  body: string;
  eventName: string;
  /** signs the body into `X-Service-Signature`; absent: unsigned */
  secret?: string;
  timeoutMs: number;
}

export interface EngineSettings {
  resolver: Resolver;
  /** lets endpoints on 127.0.0.0/8 and ::1 through the SSRF guard (default `STUB_ALLOW_LOOPBACK=1`) */
  allowLoopback: boolean;
  /** the timeout of every POST, overriding each form's (tests shorten it) */
  timeoutMs?: number;
}

/** Designed: the attempt log keeps this much of an answer's body. */
export const responseBodyLimit = 1024;

export const userAgent = 'Service-Webhooks/1.0';

export function signature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface Job {
  at: number;
  /** creation order, so jobs due at one instant start in the order they were queued */
  seq: number;
  run: () => Promise<void>;
}

/** Starts background work so that `POST /_stub/clock` and `runDue()` wait for it. */
export type Tracker = (work: Promise<void>) => unknown;

/**
 * The one delivery engine of the mail stub's outbound webhooks (Form A, Form B, later inbound):
 * signed JSON POSTs through the SSRF guard with a timeout, and a queue of jobs on the stub clock
 * (retries). Attempts start after the answer that caused them and are tracked, so the stub clock
 * control and tests can wait for them.
 */
export class DeliveryEngine {
  private jobs: Job[] = [];
  private seq = 0;
  private settings: EngineSettings;
  private tracker: Tracker = (work) => work;

  constructor(private clock: Clock) {
    this.settings = { resolver: createResolver(), allowLoopback: allowLoopbackFromEnv() };
  }

  configure(settings: Partial<EngineSettings>): void {
    this.settings = { ...this.settings, ...settings };
  }

  get allowsLoopback(): boolean {
    return this.settings.allowLoopback;
  }

  /**
   * Whether a URL's host is an address (or `localhost`) the SSRF guard refuses: such a URL is
   * refused when it is set; host names are resolved, and checked, at each delivery instead (they
   * may change, and look-ups may be unavailable when the URL is set).
   */
  refusesUrl(url: string): boolean {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const literal = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : isIP(host) ? host : undefined;
    // Plain HTTP only to a loopback endpoint, and only under the development switch (CONVENTIONS §6).
    if (parsed.protocol === 'http:' && !(this.settings.allowLoopback && literal !== undefined && isLoopback(literal))) return true;
    return literal !== undefined && isBlockedAddress(literal, { allowLoopback: this.settings.allowLoopback });
  }

  trackWith(tracker: Tracker): void {
    this.tracker = tracker;
  }

  reset(): void {
    this.jobs = [];
  }

  /** Runs `work` once the current answer has gone out, as tracked background work. */
  soon(work: () => Promise<void>): void {
    this.tracker(new Promise<void>((resolve) => setImmediate(resolve)).then(work).catch(() => undefined));
  }

  /** Queues `run` for the stub-clock time `at`; `runDue()` runs it once the clock has reached it. */
  schedule(at: number, run: () => Promise<void>): void {
    this.jobs.push({ at, seq: this.seq++, run });
  }

  /**
   * Runs every job that fell due, including ones they schedule for an instant already reached.
   * They run side by side: each may wait out a timeout, and they are independent of one another.
   */
  async runDue(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const due = this.jobs.filter((j) => j.at <= now).sort((a, b) => a.at - b.at || a.seq - b.seq);
      if (due.length === 0) return;
      this.jobs = this.jobs.filter((j) => !due.includes(j));
      await Promise.all(due.map((job) => job.run().catch(() => undefined)));
    }
  }

  /** One signed POST; never rejects: every failure is an outcome. */
  async post(request: DeliveryRequest): Promise<DeliveryOutcome> {
    const refused = (error: string): DeliveryOutcome => ({ ok: false, statusCode: null, responseBody: null, durationMs: null, error });
    let target: URL;
    let loopback: boolean;
    try {
      target = new URL(request.url);
      const addresses = await guardedAddresses(target, this.settings.resolver, { allowLoopback: this.settings.allowLoopback });
      loopback = addresses.every(isLoopback);
      // The scheme registered is the scheme used: plain HTTP is for a loopback endpoint (development only).
      if (target.protocol === 'http:' && !loopback) return refused(`${target.hostname} is not a loopback address: plain HTTP is only for loopback endpoints under STUB_ALLOW_LOOPBACK=1`);
    } catch (error) {
      return refused(error instanceof BlockedDestination || error instanceof TypeError ? error.message : String(error));
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': userAgent,
      'x-service-event': request.eventName,
      'x-service-timestamp': new Date(this.clock.now()).toISOString(),
      ...(request.secret !== undefined && { 'x-service-signature': signature(request.body, request.secret) }),
    };
    const timeoutMs = this.settings.timeoutMs ?? request.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const started = performance.now();
    try {
      // An allowed loopback endpoint (development only) keeps its TLS, whose certificate nobody can
      // have had signed for 127.0.0.1: it is not verified. Every other HTTPS endpoint's is.
      const response = loopback && target.protocol === 'https:' ? await postUnverifiedTls(target, headers, request.body, controller.signal) : await postFetch(target, headers, request.body, controller.signal);
      return {
        ok: response.status >= 200 && response.status < 300,
        statusCode: response.status,
        responseBody: response.text.slice(0, responseBodyLimit),
        durationMs: Math.round(performance.now() - started),
        error: null,
      };
    } catch (error) {
      if (controller.signal.aborted) return { ok: false, statusCode: null, responseBody: null, durationMs: Math.round(performance.now() - started), error: `No answer within ${timeoutMs} ms` };
      return refused(`Unreachable: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A POST through fetch. Redirects are not followed: the guard checked this URL only, and a 3xx is not a delivery. */
async function postFetch(target: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  const response = await fetch(target, { method: 'POST', headers, body, redirect: 'manual', signal });
  return { status: response.status, text: await response.text() };
}

/** A POST over TLS that does not verify the certificate (a loopback endpoint under the development switch only); a connection of its own. */
function postUnverifiedTls(target: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(target, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, rejectUnauthorized: false, agent: false, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function isLoopback(address: string): boolean {
  const literal = address.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(literal) && ipaddr.process(literal).range() === 'loopback';
}
