/** How `npm run dev` serves a changed service: its stub loaded again, its Prism restarted; each says so in one line. */
import type { MockServer } from '../../../mock/server.js';
import { contractOnlySlugs, loadContractService, loadService, serviceSlugs, type AppImporter } from '../../../server-stubs/lib/platform/discovery.js';
import type { PlatformServer } from '../../../server-stubs/server.js';

const ms = (since: number) => `${Math.round(performance.now() - since)} ms`;

export interface StubFolders {
  generatedDir: string;
  stubsDir: string;
}

/** Every served service: those with an app, and bundles served from their contract alone. */
export function servedSlugs({ generatedDir, stubsDir }: StubFolders): string[] {
  return [...serviceSlugs(stubsDir), ...contractOnlySlugs(generatedDir, stubsDir)];
}

/**
 * Serves a new instance of a service (it takes the running one's state); one that does not load
 * answers 503 naming the error until the next save.
 */
export async function reloadStub(platform: PlatformServer, slug: string, { generatedDir, stubsDir }: StubFolders, importApp: AppImporter, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  try {
    const fromContract = !serviceSlugs(stubsDir).includes(slug) && contractOnlySlugs(generatedDir, stubsDir).includes(slug);
    await platform.replace(fromContract ? loadContractService(slug, generatedDir) : await loadService(slug, importApp, stubsDir));
    const broken = platform.broken.find((b) => b.slug === slug);
    log(broken ? `reload   ${slug}: failed to start, answers 503: ${broken.error}` : `reload   ${slug.padEnd(20)}${ms(started).padStart(8)}  serving`);
  } catch (error) {
    await platform.markBroken({ slug, basePath: `/${slug}`, error: (error as Error).message });
    log(`reload   ${slug}: does not load, answers 503: ${(error as Error).message}`);
  }
}

/** Restarts the mocks of these services side by side. */
export async function restartMocks(mock: MockServer, slugs: string[], log: (line: string) => void): Promise<void> {
  await Promise.all(
    slugs.map(async (slug) => {
      const started = performance.now();
      await mock.restart(slug).then(
        () => log(`mock     ${slug.padEnd(20)}${ms(started).padStart(8)}  serving`),
        (error: unknown) => log(`mock     ${slug}: ${(error as Error).message}`),
      );
    }),
  );
}
