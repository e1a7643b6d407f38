import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

/** How long an idempotency key is remembered (designed; the contract marks it provisional). */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/**
 * The answers of accepted requests by `(user, idempotency key)`: a retry with the same request gets
 * the first answer again; the same key with another request is told so. Keys are per user and
 * forgotten after the window, on the stub clock.
 */
export class IdempotencyKeys<Request, Answer> {
  private readonly clock: Clock;
  /** by `[user, key]`; requests and answers are plain JSON, as they came and went over HTTP */
  private readonly seen: Collection<{ request: Request; answer: Answer; at: number }>;

  constructor(state: StateStore, name: string) {
    this.clock = state.clock;
    this.seen = state.collection(name);
  }

  /** `replay` with the first answer, `conflict` when the key came with another request, `new` otherwise. */
  recall(userId: string, key: string, request: Request): { kind: 'new' } | { kind: 'replay'; answer: Answer } | { kind: 'conflict' } {
    const entry = this.seen.get(this.slot(userId, key));
    if (!entry || this.clock.now() - entry.at >= idempotencyWindowMs) return { kind: 'new' };
    return isDeepStrictEqual(entry.request, request) ? { kind: 'replay', answer: entry.answer } : { kind: 'conflict' };
  }

  remember(userId: string, key: string, request: Request, answer: Answer): void {
    const now = this.clock.now();
    for (const slot of this.seen.keys()) if (now - this.seen.get(slot)!.at >= idempotencyWindowMs) this.seen.delete(slot);
    this.seen.set(this.slot(userId, key), { request: structuredClone(request), answer, at: now });
  }

  private slot(userId: string, key: string): string {
    return JSON.stringify([userId, key]);
  }
}
