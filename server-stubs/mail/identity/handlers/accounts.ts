import { mailHandlers, type MailDeps } from '../../context.js';
import type { MailAccount } from '../store.js';
import { iso, pageOf } from '../../wire-format.js';

const shown = (a: MailAccount) => ({ id: a.id, name: a.name, email: a.email, is_default: a.isDefault, created_at: iso(a.createdAt)! });

/** The user's sending accounts (session routes): what `allowed_account_id` of a key points at. */
export function accountHandlers({ identity }: MailDeps) {
  return mailHandlers({
    listAccounts: ({ principal, query }) => ({
      status: 200,
      body: { success: true, ...pageOf(identity.accountsOf(principal.userId).map(shown), query.page, query.limit) },
    }),

    createAccount: ({ principal, body }) => {
      const account = identity.createAccount(principal.userId, { name: body.name, email: body.email, isDefault: body.is_default });
      return { status: 201, body: { success: true, data: shown(account) } };
    },

    updateAccount: ({ principal, query, body, fail }) => {
      const account = identity.account(principal.userId, query.id) ?? fail(404, undefined, 'Account not found');
      if (body.name !== undefined) account.name = body.name;
      if (body.email !== undefined) account.email = body.email;
      if (body.is_default) identity.makeDefault(account);
      return { status: 200, body: { success: true, data: shown(account) } };
    },

    deleteAccount: ({ principal, query, fail }) => {
      const account = identity.account(principal.userId, query.id) ?? fail(404, undefined, 'Account not found');
      identity.deleteAccount(account);
      return { status: 200, body: { success: true } };
    },
  });
}
