/**
 * Prism fills each declared response header with a placeholder of its type (`x-service-usage-limit:
 * string`, even against the header's own pattern). A client of the stubs reads real values there,
 * so the mock answers each declared header as the contract stub does: its example, else a sample of
 * its schema (`responseHeaders` of server-stubs/lib/contract-answers.ts, the one sampler behind it).
 */
import type { OpenAPI3 } from 'openapi-typescript';
import { deref } from '../server-stubs/lib/openapi/document.js';
import { responseHeaders } from '../server-stubs/lib/contract-answers.js';
import { responseKeyFor, type OperationInfo } from '../server-stubs/lib/contract.js';
import { hopByHop } from '../server-stubs/lib/results.js';

/** The operation's declared headers for the status answered, by lower-case name, with real values. */
export function declaredHeaderValues(document: OpenAPI3, operation: OperationInfo, status: number): Record<string, string> {
  const key = responseKeyFor(operation, status);
  if (key === undefined) return {};
  const values = responseHeaders(document, deref(document, operation.op.responses?.[key]), { optional: true });
  // A document may declare `Content-Length` or `Transfer-Encoding`: a sample there would break the framing of the answer.
  return Object.fromEntries(Object.entries(values).flatMap(([name, value]) => (hopByHop.has(name.toLowerCase()) ? [] : [[name.toLowerCase(), value]])));
}
