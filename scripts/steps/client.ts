import type { OpenAPI3 } from 'openapi-typescript';
import { banner } from '../lib/banner.js';
import { pascalCase } from '../lib/project.js';
import { hasWebhooks } from './webhooks.js';
import { serverUrlOf } from '../../server-stubs/lib/openapi/document.js';

/** A typed openapi-fetch client factory for one service, defaulting to its first server URL. */
export function generateClient(slug: string, document: OpenAPI3): string {
  const name = pascalCase(slug);
  const servers: string[] = (document.servers ?? []).map((s) => serverUrlOf(s));
  return `${banner(`generated/${slug}/openapi.json`)}
import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from './types.gen.js';

export type * from './types.gen.js';${hasWebhooks(document) ? "\nexport * from './webhooks.gen.js';" : ''}

/** The \`servers\` of the contract (variables at their defaults): the first is the default base URL. */
export const ${camel(name)}Servers = ${JSON.stringify(servers)} as const;

/**
 * A client typed by the ${slug} contract. Switch between the stubs and the mock with \`baseUrl\`
 * alone: both serve the same paths under the same base path.
 */
export function create${name}Client(options: ClientOptions = {}) {
  return createClient<paths>({ baseUrl: ${JSON.stringify(servers[0] ?? "")}, ...options });
}

export type ${name}Client = ReturnType<typeof create${name}Client>;
`;
}

function camel(pascal: string): string {
  return pascal[0]!.toLowerCase() + pascal.slice(1);
}
