import path from 'node:path';

/** What a batch of saved files asks `npm run dev` to do. */
export interface DevPlan {
  /** a contract, schema or pipeline input changed: run the (incremental) build */
  build: boolean;
  /** services whose stub code changed: load them again */
  reload: Set<string>;
  /** a change the running process cannot take in place (the platform server itself) */
  restartNeeded: string[];
}

/**
 * Maps changed files (absolute) to the work they need. Stub code under server-stubs/<slug>/ reloads
 * that service; server-stubs/lib/ is shared, so it reloads every service, except server-stubs/lib/platform/,
 * which is the platform server itself (read once, as server.ts is). Contracts and schemas go
 * through the build, whose rebuilt units then say which services to reload.
 */
export function planFor(root: string, changed: Iterable<string>, services: string[]): DevPlan {
  const plan: DevPlan = { build: false, reload: new Set(), restartNeeded: [] };
  for (const file of changed) {
    const [top, second, third] = path.relative(root, file).split(path.sep);
    if (top === 'openapi' || top === 'schemas' || top === 'redocly.yaml') plan.build = true;
    else if (top === 'server-stubs' && second === 'lib' && third === 'platform') plan.restartNeeded.push(path.relative(root, file));
    else if (top === 'server-stubs' && second === 'lib') for (const slug of services) plan.reload.add(slug);
    else if (top === 'server-stubs' && second && services.includes(second)) plan.reload.add(second);
    else if (top === 'server-stubs' && second && !second.includes('.')) plan.reload.add(second); // a new service folder
    else if (top === 'server-stubs') plan.restartNeeded.push(path.relative(root, file));
  }
  return plan;
}

/** Services to reload after a build: each rebuilt contract (`api:<slug>`) or schema set (`schemas:<slug>`) of a served service. */
export function servicesRebuilt(rebuilt: string[], services: string[]): string[] {
  const slugs = rebuilt.map((key) => key.slice(key.indexOf(':') + 1));
  return services.filter((slug) => slugs.includes(slug));
}
