import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import { isDomainName, normalizedDomain } from '../dns-check.js';
import { dnsRecordsOf, type SendingDomainRecord } from '../sending-domains-store.js';
import { invalidRequest } from '../../../lib/failures.js';

type SendingDomain = components['schemas']['SendingDomain'];

function shown(d: SendingDomainRecord): SendingDomain {
  return { id: d.id, domain: d.domain, status: d.status, dns_records: dnsRecordsOf(d), created_at: iso(d.createdAt)!, verified_at: iso(d.verifiedAt) };
}

const alreadyAdded = 'Domain already exists';

/** Sending domains: list, add (records to publish, verified through DNS), remove. */
export function domainHandlers({ sendingDomains }: MailDeps) {
  return mailHandlers({
    listDomains: async ({ principal, query }) => {
      await sendingDomains.recheckPendingOf(principal.userId);
      return { status: 200, body: { success: true, ...pageOf(sendingDomains.of(principal.userId).map(shown), query.page, query.limit) } };
    },

    createDomain: async ({ principal, body, fail }) => {
      if (!isDomainName(body.domain)) invalidRequest({ fieldErrors: { domain: ['Invalid hostname'] } });
      const domain = normalizedDomain(body.domain);
      if (sendingDomains.byDomain(principal.userId, domain)) fail(409, undefined, alreadyAdded);
      const record = (await sendingDomains.add(principal.userId, domain)) ?? fail(409, undefined, alreadyAdded);
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    deleteDomain: ({ principal, query, fail }) => {
      if (!sendingDomains.delete(principal.userId, query.id)) fail(404, undefined, 'Domain not found');
      return { status: 200, body: { success: true } };
    },
  });
}
