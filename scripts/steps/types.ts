import { banner } from '../lib/banner.js';

/** TypeScript types of a bundled document: paths, operations, components, webhooks. */
export async function generateApiTypes(slug: string, document: Record<string, any>): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(structuredClone(document) as never, {
    silent: true,
    alphabetize: false,
    // Left on, a `default` would make the field required in requests too, where it is optional.
    defaultNonNullable: false,
  });
  return `${banner(`generated/${slug}/openapi.json (openapi-typescript)`)}\n${astToString(ast)}`;
}
