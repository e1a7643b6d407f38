import { deref, type JsonDocument } from '../../server-stubs/lib/openapi/document.js';
import { isSchemaNode, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';

/**
 * The schema object a node stands for, its `$ref`s followed; undefined for `true`/`false`, a missing
 * node or one that is no schema, so a walk reads keywords only where there are some.
 */
export function schemaAt(document: JsonDocument, node: unknown): SchemaNode | undefined {
  const schema = deref(document, node);
  return isSchemaNode(schema) ? schema : undefined;
}
