import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { isDomainName, normalizedDomain } from '../../deliverability/dns-check.js';
import { iso, pageOf } from '../../wire-format.js';
import { publishesInboundMx } from '../dns-checks.js';
import { inboundExchanges, type InboundRouteRecord } from '../inbound-routes.js';
import { loopbackHint } from '../../../lib/net-guard.js';
import { invalidRequest } from '../../../lib/failures.js';

type InboundRoute = components['schemas']['InboundRoute'];

function shown(r: InboundRouteRecord): InboundRoute {
  return { id: r.id, domain: r.domain, webhook_url: r.webhookUrl, mx_records: inboundExchanges.map((mx) => ({ ...mx })), status: r.status, created_at: iso(r.createdAt)! };
}

/** A pending route is looked up again on a list read once its last check is this old (as sending domains are). */
export const inboundRecheckAfterMs = 60_000;

const alreadyConfigured = 'Inbound domain already configured';

/** Inbound routes: configure a domain whose received mail is posted as `email.received`, list, remove. */
export function inboundHandlers({ infrastructure, webhooks, dns, clock }: MailDeps) {
  const routes = infrastructure.inbound;
  const check = async (record: InboundRouteRecord) => routes.checked(record, await publishesInboundMx(dns, record.domain));

  return mailHandlers({
    listInboundRoutes: async ({ principal, query }) => {
      const now = clock.now();
      await Promise.all(routes.of(principal.userId).filter((r) => r.status === 'pending' && now - r.lastCheckedAt >= inboundRecheckAfterMs).map(check));
      return { status: 200, body: { success: true, ...pageOf(routes.of(principal.userId).map(shown), query.page, query.limit) } };
    },

    createInboundRoute: async ({ principal, body, fail }) => {
      const fieldErrors = {
        ...(!isDomainName(body.domain) && { domain: ['Invalid hostname'] }),
        ...(webhooks.engine.refusesUrl(body.webhook_url) && { webhook_url: [`Must not point at a loopback, private or link-local address${loopbackHint(body.webhook_url)}`] }),
      };
      if (Object.keys(fieldErrors).length > 0) invalidRequest({ fieldErrors });
      const domain = normalizedDomain(body.domain);
      if (routes.forDomain(domain)) fail(409, undefined, alreadyConfigured);
      const record = routes.add(principal.userId, domain, body.webhook_url, body.secret ?? null);
      await check(record);
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    deleteInboundRoute: ({ principal, query, fail }) => {
      if (!routes.delete(principal.userId, query.id)) fail(404, undefined, 'Inbound route not found');
      return { status: 200, body: { success: true } };
    },
  });
}
