import type { components } from '../../../../generated/mail/types.gen.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { isDomainName, normalizedDomain } from '../../deliverability/dns-check.js';
import { iso, pageOf } from '../../wire-format.js';
import { requireFeature } from '../../identity/plans.js';
import type { DedicatedIpPool, DedicatedIpRecord } from '../dedicated-ips.js';
import { resolvesTo } from '../dns-checks.js';
import { invalidRequest } from '../../../lib/failures.js';

type DedicatedIp = components['schemas']['DedicatedIp'];

function shownBy(pool: DedicatedIpPool) {
  return (r: DedicatedIpRecord): DedicatedIp => {
    const { status, warmupProgress } = pool.state(r);
    return { id: r.id, ip: r.ip, pool: r.pool, status, warmup_progress: warmupProgress, reverse_dns: r.reverseDns, created_at: iso(r.createdAt)! };
  };
}

const notFound = 'Dedicated IP not found';

/** Dedicated IPs (Max plan): request, list, change pool or PTR name (forward-confirmed through the stub's resolver), release. */
export function dedicatedIpHandlers({ infrastructure, identity, dns }: MailDeps) {
  const pool = infrastructure.dedicatedIps;
  const shown = shownBy(pool);
  const gate = (userId: string) => requireFeature(identity.user(userId)?.plan ?? 'free', 'dedicated_ips');

  return mailHandlers({
    listDedicatedIps: ({ principal, query }) => {
      gate(principal.userId);
      return { status: 200, body: { success: true, ...pageOf(pool.of(principal.userId).map(shown), query.page, query.limit) } };
    },

    createDedicatedIp: ({ principal, body }) => {
      gate(principal.userId);
      return { status: 201, body: { success: true, data: shown(pool.request(principal.userId, body.pool, body.warmup)) } };
    },

    updateDedicatedIp: async ({ principal, query, body, fail }) => {
      gate(principal.userId);
      const record = pool.get(principal.userId, query.id) ?? fail(404, undefined, notFound);
      if (pool.state(record).status === 'released') fail(409, undefined, 'Dedicated IP has been released');
      let reverseDns = record.reverseDns;
      if (body.reverse_dns !== undefined && body.reverse_dns !== null) {
        // The schema's `hostname` format also lets IP literals through; a PTR target is a name.
        if (!isDomainName(body.reverse_dns)) invalidRequest({ fieldErrors: { reverse_dns: ['Invalid hostname'] } });
        const ip = record.ip ?? fail(422, undefined, 'reverse_dns must resolve to the IP: no address is assigned yet (the IP is provisioning)');
        const check = await resolvesTo(dns, body.reverse_dns, ip);
        if (!check.confirmed) fail(422, undefined, check.reason);
        reverseDns = normalizedDomain(body.reverse_dns);
      } else if (body.reverse_dns === null) {
        reverseDns = null;
      }
      // The look-up took time: the IP may have been released meanwhile.
      if (pool.state(record).status === 'released') fail(409, undefined, 'Dedicated IP has been released');
      record.reverseDns = reverseDns;
      if (body.pool !== undefined) record.pool = body.pool;
      return { status: 200, body: { success: true, data: shown(record) } };
    },

    deleteDedicatedIp: ({ principal, query, fail }) => {
      gate(principal.userId);
      const record = pool.get(principal.userId, query.id) ?? fail(404, undefined, notFound);
      pool.release(record);
      return { status: 200, body: { success: true } };
    },
  });
}
