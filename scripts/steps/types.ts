import { banner } from '../lib/banner.js';

/** TypeScript types of a bundled document: paths, operations, components, webhooks. */
export async function generateApiTypes(slug: string, document: Record<string, any>): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(structuredClone(document) as never, {
    silent: true,
    alphabetize: false,
    // `default` makes a response field present, never a request field optional.
    defaultNonNullable: true,
  });
  return `${banner(`generated/${slug}/openapi.json (openapi-typescript)`)}\n${astToString(ast)}`;
}
