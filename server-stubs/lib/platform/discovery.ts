/**
 * Finding the services to serve: server-stubs/<slug>/app.ts, so a new one slots in by adding its
 * folder, and bundles generated/<slug>/openapi.json without one (a document brought in by `npm run
 * add-service`), served from their contract alone (DECISIONS I-2).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OpenAPI3 } from 'openapi-typescript';
import { contractStub } from '../contract-stub.js';
import { mountPathOf } from '../openapi/document.js';
import type { StubService } from '../service.js';

/** server-stubs/ (or its compiled mirror under `.cache/js/`, `npm start`): two levels above this folder. */
export const defaultStubsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The root the stubs folder sits in; error messages are written relative to it. */
export const stubsRoot = path.resolve(defaultStubsDir, '..');
export const defaultGeneratedDir = path.join(stubsRoot, 'generated');

/** Bundles that are not a service: the development controls' own contract (served by controls.ts). */
const notServices = new Set(['stub-controls']);

/** A service folder that could not be loaded or started, and why. */
export interface BrokenService {
  slug: string;
  basePath: string;
  error: string;
}

/** How a service's `app.ts` is imported: plain `import()`, or a fresh module graph each time (`npm run dev`). */
export type AppImporter = (file: string) => Promise<unknown>;

const importOnce: AppImporter = (file) => import(pathToFileURL(file).href);

/** A service's app module: the source, or the compiled JavaScript when this runs from `.cache/js/` (`npm start`). */
const appFile = (slug: string, stubsDir: string) => ['app.ts', 'app.js'].map((name) => path.join(stubsDir, slug, name)).find((file) => existsSync(file));

/**
 * The slugs of server-stubs/<slug>/app.ts; `stubsDir` is another project's server-stubs/ (`npm run
 * dev` on a copy of the project, as its tests run it).
 */
export function serviceSlugs(stubsDir: string = defaultStubsDir): string[] {
  return readdirSync(stubsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'lib' && appFile(d.name, stubsDir))
    .map((d) => d.name)
    .sort();
}

/** Imports one service's app module; throws with a message naming the file when it has no StubService. */
export async function loadService(slug: string, importApp: AppImporter = importOnce, stubsDir: string = defaultStubsDir): Promise<StubService> {
  const file = appFile(slug, stubsDir);
  if (!file) throw new Error(`server-stubs/${slug}/app.ts does not exist`);
  const module = (await importApp(file)) as { default?: StubService };
  if (!module.default?.create) throw new Error(`server-stubs/${slug}/app.ts has no default StubService export`);
  return module.default;
}

/** The slugs with a bundle in `generatedDir` and no server-stubs/<slug>/app.ts: served from their contract alone. */
export function contractOnlySlugs(generatedDir: string = defaultGeneratedDir, stubsDir: string = defaultStubsDir): string[] {
  if (!existsSync(generatedDir)) return [];
  const withApp = new Set(serviceSlugs(stubsDir));
  return readdirSync(generatedDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !notServices.has(d.name) && !withApp.has(d.name) && existsSync(path.join(generatedDir, d.name, 'openapi.json')))
    .map((d) => d.name)
    .sort();
}

/** The contract stub of a bundle; throws with a message naming the file when it cannot be read or served. */
export function loadContractService(slug: string, generatedDir: string = defaultGeneratedDir): StubService {
  const file = path.join(generatedDir, slug, 'openapi.json');
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`generated/${slug}/openapi.json cannot be read: ${(error as Error).message}`);
  }
  return contractStub(slug, document as OpenAPI3);
}

/** Where a bundle would be served, read without trusting it: `/<slug>` when it cannot be read. */
export function bundleMountPath(slug: string, generatedDir: string): string {
  try {
    return mountPathOf(slug, JSON.parse(readFileSync(path.join(generatedDir, slug, 'openapi.json'), 'utf8')) as OpenAPI3);
  } catch {
    return `/${slug}`;
  }
}

export async function discoverServices(
  importApp: AppImporter = importOnce,
  generatedDir: string = defaultGeneratedDir,
  stubsDir: string = defaultStubsDir,
): Promise<{ services: StubService[]; broken: BrokenService[] }> {
  const services: StubService[] = [];
  const broken: BrokenService[] = [];
  for (const slug of serviceSlugs(stubsDir)) {
    try {
      services.push(await loadService(slug, importApp, stubsDir));
    } catch (error) {
      broken.push({ slug, basePath: bundleMountPath(slug, generatedDir), error: (error as Error).message });
    }
  }
  for (const slug of contractOnlySlugs(generatedDir, stubsDir)) {
    try {
      services.push(loadContractService(slug, generatedDir));
    } catch (error) {
      broken.push({ slug, basePath: bundleMountPath(slug, generatedDir), error: (error as Error).message });
    }
  }
  return { services, broken };
}

/**
 * The services of server-stubs/ and the contract-only bundles, not loaded yet: each with where it
 * will be mounted (where its bundle's `servers` says, as once loaded) and how to load it.
 */
export function servicesToLoad(generatedDir: string, stubsDir: string, importApp?: AppImporter): ServiceToLoad[] {
  const withApp = serviceSlugs(stubsDir).map((slug) => ({ slug, basePath: bundleMountPath(slug, generatedDir), load: () => loadService(slug, importApp, stubsDir) }));
  const fromContract = contractOnlySlugs(generatedDir, stubsDir).map((slug) => ({
    slug,
    basePath: bundleMountPath(slug, generatedDir),
    load: () => Promise.resolve().then(() => loadContractService(slug, generatedDir)),
  }));
  return [...withApp, ...fromContract];
}

export interface ServiceToLoad {
  slug: string;
  basePath: string;
  load: () => Promise<StubService>;
}
