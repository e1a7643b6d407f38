import { mailHandlers, type MailDeps } from '../../context.js';
import { aliasHandlers } from './aliases.js';
import { dedicatedIpHandlers } from './dedicated-ips.js';
import { inboundHandlers } from './inbound.js';
import { subjectLineHandlers } from './subject-lines.js';

/** Aliases, dedicated IPs (Max), inbound routes, AI subject lines (Pro). */
export function infrastructureHandlers(deps: MailDeps) {
  return mailHandlers({
    ...aliasHandlers(deps),
    ...dedicatedIpHandlers(deps),
    ...inboundHandlers(deps),
    ...subjectLineHandlers(deps),
  });
}
