import type http from 'node:http';
import type { ServiceSlots } from './service-slots.js';

/**
 * WebSocket upgrades go to the running service whose base path the target is under (loading it
 * first when it is one of `lazySlugs`); one no service takes is closed.
 */
export function dispatchUpgrades(server: http.Server, slots: ServiceSlots, lazySlugs: string[]): void {
  server.on('upgrade', (req, socket, head) => {
    const dispatch = () => {
      const match = slots.instances.find(({ slug }) => {
        const basePath = slots.services.find((s) => s.slug === slug)!.basePath;
        return (req.url ?? '').startsWith(`${basePath}/`) || req.url === basePath;
      });
      if (!match?.instance.upgrade?.(req, socket, head)) socket.destroy();
    };
    const slug = lazySlugs.find((s) => req.url === `/${s}` || (req.url ?? '').startsWith(`/${s}/`));
    if (slug) void slots.load(slug).then(dispatch);
    else dispatch();
  });
}
