import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { normalizedDomain } from '../../deliverability/dns-check.js';
import { iso, pageOf } from '../../wire-format.js';
import type { AliasRecord } from '../aliases.js';
import { invalidRequest } from '../../../lib/failures.js';

type Alias = components['schemas']['Alias'];

function shown(a: AliasRecord): Alias {
  return { id: a.id, alias: a.alias, forward_to: [...a.forwardTo], domain_id: a.domainId, enabled: a.enabled, created_at: iso(a.createdAt)!, updated_at: iso(a.updatedAt)! };
}

/** Why `forward_to` cannot be used for this alias: mail forwarded to itself loops, and a target listed twice gets every message twice. */
function forwardingProblems(alias: string, forwardTo: string[]): string[] {
  const lower = forwardTo.map((a) => a.toLowerCase());
  return [
    ...(lower.includes(alias.toLowerCase()) ? ['Must not include the alias itself'] : []),
    ...(new Set(lower).size < lower.length ? ['Lists the same address twice'] : []),
  ];
}

const notFound = 'Alias not found';

/** Aliases: addresses on the account's sending domains forwarded to other addresses. */
export function aliasHandlers({ infrastructure, sendingDomains }: MailDeps) {
  const { aliases } = infrastructure;
  return mailHandlers({
    listAliases: ({ principal, query }) => ({ status: 200, body: { success: true, ...pageOf(aliases.of(principal.userId).map(shown), query.page, query.limit) } }),

    createAlias: ({ principal, body, fail }) => {
      const userId = principal.userId;
      const problems = forwardingProblems(body.alias, body.forward_to);
      if (problems.length > 0) invalidRequest({ fieldErrors: { forward_to: problems } });
      const domain =
        sendingDomains.byDomain(userId, normalizedDomain(body.alias.slice(body.alias.lastIndexOf('@') + 1))) ?? fail(422, undefined, 'Alias domain is not a sending domain of the account');
      if (aliases.byAddress(userId, body.alias)) fail(409, undefined, 'Alias already exists');
      const record = aliases.create(userId, { alias: body.alias, forwardTo: body.forward_to, domainId: domain.id, enabled: body.enabled });
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    updateAlias: ({ principal, query, body, fail }) => {
      const record = aliases.get(principal.userId, query.id) ?? fail(404, undefined, notFound);
      const problems = body.forward_to === undefined ? [] : forwardingProblems(record.alias, body.forward_to);
      if (problems.length > 0) invalidRequest({ fieldErrors: { forward_to: problems } });
      aliases.update(record, { forwardTo: body.forward_to, enabled: body.enabled });
      return { status: 200, body: { success: true, data: shown(record) } };
    },

    deleteAlias: ({ principal, query, fail }) => {
      if (!aliases.delete(principal.userId, query.id)) fail(404, undefined, notFound);
      return { status: 200, body: { success: true } };
    },
  });
}
