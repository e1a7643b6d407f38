import type { Clock } from '../../lib/clock.js';
import { AliasBook } from './aliases.js';
import { DedicatedIpPool } from './dedicated-ips.js';
import { InboundRoutes } from './inbound-routes.js';

/** Aliases, dedicated IPs and inbound routes per user. */
export class InfrastructureStore {
  readonly aliases: AliasBook;
  readonly dedicatedIps: DedicatedIpPool;
  readonly inbound: InboundRoutes;

  constructor(clock: Clock) {
    this.aliases = new AliasBook(clock);
    this.dedicatedIps = new DedicatedIpPool(clock);
    this.inbound = new InboundRoutes(clock);
    this.reset();
  }

  reset(): void {
    this.aliases.reset();
    this.dedicatedIps.reset();
    this.inbound.reset();
  }
}
