import { blogHandlers, type BlogDeps } from '../context.js';
import { requireFeature } from '../metering.js';
import { entry, iso } from '../store.js';

export function teamHandlers({ store }: BlogDeps) {
  return blogHandlers({
    addTeamMember: ({ principal, body, fail }) => {
      const account = store.account(principal.accountId);
      requireFeature(store, account, 'team_members', fail);
      const key = body.email.toLowerCase();
      const existing = entry(account.team, key);
      if (existing) return { status: 200, body: existing };
      const member = { id: store.newId(), email: body.email, role: body.role, added_at: iso(store.now()) };
      account.team[key] = member;
      return { status: 201, body: member };
    },
  });
}
