import type { OpenAPI3 } from 'openapi-typescript';

/**
 * A test's own document as the typed model takes it. Fixtures leave out what the code under test
 * does not read (`info`, say), and openapi-typescript's types are stricter than OpenAPI in places (a
 * Server object without `description`, a 3.0 `nullable` without `type`): what such a document means
 * is for the validators to say, as for any document the toolkit is given.
 */
export const asDocument = (document: object): OpenAPI3 => document as OpenAPI3;
