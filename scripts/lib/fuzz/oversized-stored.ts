/**
 * Oversized values a server accepted and stored: served back once, then removed.
 *
 * The bad half of a run sends bodies of hundreds of kilobytes to megabytes (a 700,000-character
 * name where the contract sets no `maxLength`). A server may rightly accept and store one; from
 * then on every answer that lists its collection carries it, and each is serialized, validated
 * and sent by the server and parsed, validated and scanned again here: a few such creates made
 * most of a run's work, the same value judged dozens of times. What they prove is proven by the
 * first of those answers: the create's own answer and the first later success that carries the
 * resource back are judged like any other answer; then the resource is deleted (cleanup's DELETE,
 * where the contract has one), so no later answer carries it again.
 */
import { gone, type Cleanup, type Created } from './cleanup.js';
import { bodyLength, type FuzzRequest, type Observed } from './wire.js';

/**
 * A request body past this size carries one of the run's oversized values: far above any valid body
 * the generator writes (a few kilobytes), below its smallest oversized value (an array of 20,000 items).
 */
export const OVERSIZED_BODY_BYTES = 32 * 1024;

export function createOversizedStore(cleanup: Cleanup) {
  /** resources created by an oversized request, not yet served back */
  const pending = new Set<Created>();

  return {
    /**
     * After each answer: a resource this request created with an oversized body is held until it is
     * served back; those this answer served back are deleted now. Answers the resources removed.
     */
    async settle(r: FuzzRequest, created: Created | undefined, observed: Observed, send: (r: FuzzRequest) => Promise<Observed>): Promise<Created[]> {
      if (created) {
        if (bodyLength(r.body) > OVERSIZED_BODY_BYTES) pending.add(created);
        return [];
      }
      if (pending.size === 0 || observed.status < 200 || observed.status >= 300) return [];
      const removed: Created[] = [];
      for (const entry of [...pending].filter((e) => observed.body.includes(e.id))) {
        pending.delete(entry);
        const answer = await cleanup.remove(entry, send);
        if (answer && gone(answer)) removed.push(entry);
        // Refused for now (a rate window, say): the next answer that carries it tries again.
        else if (answer) pending.add(entry);
      }
      return removed;
    },
  };
}
