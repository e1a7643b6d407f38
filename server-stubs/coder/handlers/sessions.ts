import { randomUUID } from 'node:crypto';
import type { Fail } from '../../lib/handlers.js';
import { coderHandlers, type CoderDeps } from '../context.js';
import { detailOf, summaryOf, type SessionsStore } from '../sessions-store.js';

/** The store, or 503 when it is switched off (DECISIONS coder-8). */
export function requireStore(deps: Pick<CoderDeps, 'sessions' | 'switches'>, fail: Fail<503>): SessionsStore {
  return deps.switches.sessionStore ? deps.sessions : fail(503, undefined, 'Session manager not initialized');
}

export function sessionHandlers(deps: CoderDeps) {
  return coderHandlers({
    listSessions: ({ principal, query }) => {
      // Published: listing degrades to an empty list when the store is not initialised.
      const sessions = deps.switches.sessionStore ? deps.sessions.list(principal.owner, query.limit).map(summaryOf) : [];
      return { status: 200, body: { sessions, count: sessions.length } };
    },

    createSession: ({ principal, query, fail }) => {
      const store = requireStore(deps, fail);
      const id = query.session_id ?? randomUUID();
      // Another key's id answers as a read of it would: the caller learns nothing it may not see.
      if (store.claim(id, principal.owner) === 'taken') fail(404, undefined, 'Session not found');
      store.create(id, principal.owner, query.workspace_root);
      return { status: 200, body: { session_id: id } };
    },

    getSession: ({ principal, params, fail }) => {
      const store = requireStore(deps, fail);
      const entry = store.visible(params.session_id, principal.owner) ?? fail(404, undefined, 'Session not found');
      return { status: 200, body: detailOf(entry) };
    },
  });
}
