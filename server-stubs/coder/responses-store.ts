import type { Collection, StateStore } from '../lib/store.js';
import type { RouterMessage } from './router.js';

/** A stored Responses API answer: the object as answered, and the conversation it closes. */
export interface StoredResponse<R> {
  /** the key owner (null: a deployment without keys, visible to everyone, DECISIONS coder-2) */
  owner: string | null;
  response: R;
  /** every turn up to and including this answer, instructions excluded (they hold for one turn) */
  conversation: RouterMessage[];
}

/** Responses kept for `previous_response_id` and retrieve, per key owner. */
export class ResponsesStore<R extends { id: string }> {
  private readonly byId: Collection<StoredResponse<R>>;

  constructor(state: StateStore) {
    this.byId = state.collection<StoredResponse<R>>('responses');
  }

  save(entry: StoredResponse<R>): void {
    this.byId.set(entry.response.id, entry);
  }

  /** The owner's response, or undefined for an unknown id or another owner's (never told apart). */
  find(owner: string | null, id: string): StoredResponse<R> | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    return entry.owner === null || entry.owner === owner ? entry : undefined;
  }
}
