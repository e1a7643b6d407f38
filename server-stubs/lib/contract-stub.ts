/**
 * A service served from its contract alone (DECISIONS I-2): a document brought in with no
 * hand-written stub gets the framework's router (validation, security presence, rate limits) with
 * answers from its examples or schema samples and errors in its own declared shapes.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { systemClock } from './clock.js';
import { contractAnswers } from './contract-answers.js';
import { contractErrors } from './contract-errors.js';
import { presenceSecurity, presentation } from './presence-security.js';
import { createServiceRouter } from './service-router.js';
import { passedThrough, type RouterSwitches, type StubService } from './service.js';
import { deref, mountPathOf } from './openapi/document.js';

/** The stub of `document`; throws, naming the problem, when the document is no OpenAPI 3.0 or 3.1 it can serve. */
export function contractStub(slug: string, document: OpenAPI3): StubService<RouterSwitches> {
  const problem = unservable(document);
  if (problem) throw new Error(`${slug}: ${problem}`);
  const errors = contractErrors(document);
  return {
    slug,
    basePath: mountPathOf(slug, document),
    title: typeof document.info?.title === 'string' ? document.info.title : slug,
    credentials: [],
    anyCredential: Object.values(document.components?.securitySchemes ?? {}).map((scheme) => presentation(deref(document, scheme))),
    errors,
    create(options = {}) {
      const service = createServiceRouter({
        slug,
        document,
        handlers: contractAnswers(document),
        security: presenceSecurity(document),
        errors,
        clock: options.clock ?? systemClock,
        ...passedThrough(options),
      });
      return { router: service.router, unimplemented: service.unimplemented };
    },
  };
}

/** Why a parsed bundle cannot be served, if it cannot. */
function unservable(document: unknown): string | undefined {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return 'the bundle is not a JSON object';
  const version = 'openapi' in document ? document.openapi : undefined;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version)) return `the bundle is not OpenAPI 3.0 or 3.1 (openapi: ${JSON.stringify(version ?? null)})`;
  const paths = 'paths' in document ? document.paths : undefined;
  if (paths !== undefined && (paths === null || typeof paths !== 'object')) return 'its `paths` is not an object';
  return undefined;
}
