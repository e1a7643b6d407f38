import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso } from '../../wire-format.js';
import { planNames, withinQuota } from '../../identity/plans.js';
import { fullCheck, isDkimSelector, isDomainName, normalizedDomain } from '../dns-check.js';
import type { MonitoredDomainRecord } from '../monitored-domains-store.js';
import { invalidRequest } from '../../../lib/failures.js';

type MonitoredDomain = components['schemas']['MonitoredDomain'];

function shown(d: MonitoredDomainRecord): MonitoredDomain {
  return {
    id: d.id,
    domain: d.domain,
    spf_valid: d.check.spf.valid,
    dkim_valid: d.check.dkim.valid,
    dmarc_valid: d.check.dmarc.valid,
    dkim_selector: d.dkimSelector,
    dmarc_policy: d.check.dmarc.policy,
    mx_records: d.check.mx.map((m) => ({ ...m })),
    overall_score: d.check.overallScore,
    last_checked_at: iso(d.lastCheckedAt)!,
    // Within the plan's allowance monitoring is part of the subscription (see the schema).
    billing_active: true,
    status: d.status,
    created_at: iso(d.createdAt)!,
  };
}

/** DMARC monitoring: list, add (DNS checked at once), remove. */
export function dmarcHandlers({ monitoredDomains, identity, dns, clock }: MailDeps) {
  /** Refused before and again after the look-ups, so two adds racing through the check cannot both land. */
  const refuseUnlessRoom = (userId: string, domain: string, fail: Fail<403 | 409>) => {
    if (monitoredDomains.byDomain(userId, domain)) fail(409, undefined, 'Domain already monitored');
    const plan = identity.user(userId)?.plan ?? 'free';
    if (!withinQuota(plan, 'monitored_domains', monitoredDomains.count(userId))) fail(403, undefined, `Monitored domain limit reached for your plan (${planNames[plan]})`);
  };

  return mailHandlers({
    listMonitoredDomains: ({ principal }) => ({ status: 200, body: { success: true, data: monitoredDomains.of(principal.userId).map(shown) } }),

    addMonitoredDomain: async ({ principal, body, fail }) => {
      const userId = principal.userId;
      const fieldErrors = {
        ...(!isDomainName(body.domain) && { domain: ['Invalid hostname'] }),
        ...(!isDkimSelector(body.dkim_selector) && { dkim_selector: ['Invalid DKIM selector'] }),
      };
      if (Object.keys(fieldErrors).length > 0) invalidRequest({ fieldErrors });
      const domain = normalizedDomain(body.domain);
      refuseUnlessRoom(userId, domain, fail);
      const { dnsCheck, status } = await fullCheck(dns, domain, body.dkim_selector);
      refuseUnlessRoom(userId, domain, fail);
      const record = monitoredDomains.add(userId, domain, body.dkim_selector, { check: dnsCheck, status }, clock.now());
      return {
        status: 201,
        body: { success: true, data: { id: record.id, domain: record.domain, dkim_selector: record.dkimSelector, overall_score: dnsCheck.overallScore, dns_check: dnsCheck, created_at: iso(record.createdAt)! } },
      };
    },

    removeMonitoredDomain: ({ principal, query, fail }) => {
      if (!monitoredDomains.delete(principal.userId, query.domain_id)) fail(404, undefined, 'Domain not found');
      return { status: 200, body: { success: true } };
    },
  });
}
