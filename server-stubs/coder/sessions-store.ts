import type { Cell, Collection, StateStore } from '../lib/store.js';

/** Published limits of the session routes. */
export const sessionLimits = { previewChars: 120, eventsReturned: 200 } as const;

export interface SessionMessage {
  role: 'user' | 'assistant';
  content: string;
  createdAtMs: number;
}

export interface SessionEvent {
  type: string;
  payload: Record<string, unknown>;
  createdAtMs: number;
}

/**
 * Everything kept under one session id. `record` is set by `POST /sessions`; messages and events
 * may arrive before it (or without it: then a read shows `session: null`, DECISIONS coder-3).
 * `owner` is whoever first used the id (the SHA-256 of its key, or null when unowned).
 */
export interface SessionEntry {
  id: string;
  owner: string | null;
  record?: { createdAtMs: number; workspaceRoot: string; seq: number };
  messages: SessionMessage[];
  events: SessionEvent[];
}

/** The answer to "may this caller use this id": free (nobody has it), theirs, or another owner's. */
export type Claim = 'free' | 'mine' | 'taken';

/** The gateway's sessions, kept in the app's state store, on the stub clock. */
export class SessionsStore {
  private readonly entries: Collection<SessionEntry>;
  /** the order records were created in, which breaks ties between records created at the same instant */
  private readonly seq: Cell<number>;

  constructor(private readonly state: StateStore) {
    this.entries = state.collection<SessionEntry>('sessions');
    this.seq = state.cell('sessionSequence', () => 0);
  }

  /** Unowned sessions are everyone's; an owned one is its owner's only. */
  claim(id: string, owner: string | null): Claim {
    const entry = this.entries.get(id);
    if (!entry) return 'free';
    return entry.owner === null || entry.owner === owner ? 'mine' : 'taken';
  }

  /** Creates the record unless there is one (then the session is left unchanged). The caller checked the claim. */
  create(id: string, owner: string | null, workspaceRoot: string): void {
    const entry = this.entryFor(id, owner);
    if (entry.record) return;
    this.seq.set(this.seq.get() + 1);
    entry.record = { createdAtMs: this.state.clock.now(), workspaceRoot, seq: this.seq.get() };
  }

  addMessage(id: string, owner: string | null, role: SessionMessage['role'], content: string): void {
    this.entryFor(id, owner).messages.push({ role, content, createdAtMs: this.state.clock.now() });
  }

  addEvent(id: string, owner: string | null, type: string, payload: Record<string, unknown>): void {
    this.entryFor(id, owner).events.push({ type, payload, createdAtMs: this.state.clock.now() });
  }

  /** The entry if the caller may see it. */
  visible(id: string, owner: string | null) {
    return this.claim(id, owner) === 'mine' ? this.entries.get(id) : undefined;
  }

  /** Sessions with a record the caller may see, newest first (created later, or created at the same instant but after). */
  list(owner: string | null, limit: number) {
    return this.entries
      .filter((e) => e.record !== undefined && (e.owner === null || e.owner === owner))
      .sort((a, b) => b.record!.createdAtMs - a.record!.createdAtMs || b.record!.seq - a.record!.seq)
      .slice(0, limit);
  }

  private entryFor(id: string, owner: string | null): SessionEntry {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { id, owner, messages: [], events: [] };
      this.entries.set(id, entry);
    }
    return entry;
  }
}

export type SessionEntryView = NonNullable<ReturnType<SessionsStore['visible']>>;

const iso = (ms: number) => new Date(ms).toISOString();

export function summaryOf(entry: SessionEntryView) {
  const record = entry.record!;
  const firstUser = entry.messages.find((m) => m.role === 'user');
  const latest = Math.max(record.createdAtMs, ...entry.messages.map((m) => m.createdAtMs), ...entry.events.map((e) => e.createdAtMs));
  return {
    id: entry.id,
    created_at: iso(record.createdAtMs),
    workspace_root: record.workspaceRoot,
    // Code points, not UTF-16 units: a cut never splits a character in two.
    preview: [...(firstUser?.content ?? '')].slice(0, sessionLimits.previewChars).join(''),
    message_count: entry.messages.length,
    last_activity: iso(latest),
  };
}

export function detailOf(entry: SessionEntryView) {
  return {
    session: entry.record
      ? { id: entry.id, created_at: iso(entry.record.createdAtMs), workspace_root: entry.record.workspaceRoot, owner_hash: entry.owner }
      : null,
    messages: entry.messages.map((m) => ({ role: m.role, content: m.content, created_at: iso(m.createdAtMs) })),
    events: entry.events.slice(-sessionLimits.eventsReturned).map((e) => ({ type: e.type, payload: e.payload, created_at: iso(e.createdAtMs) })),
  };
}
