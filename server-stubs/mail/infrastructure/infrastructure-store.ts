import type { StateStore } from '../../lib/store.js';
import { AliasBook } from './aliases.js';
import { DedicatedIpPool } from './dedicated-ips.js';
import { InboundRoutes } from './inbound-routes.js';

/** Aliases, dedicated IPs and inbound routes per user. */
export class InfrastructureStore {
  readonly aliases: AliasBook;
  readonly dedicatedIps: DedicatedIpPool;
  readonly inbound: InboundRoutes;

  constructor(state: StateStore) {
    this.aliases = new AliasBook(state);
    this.dedicatedIps = new DedicatedIpPool(state);
    this.inbound = new InboundRoutes(state);
  }
}
