import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const generatedDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../generated');

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  schema: Record<string, any>;
}

export interface Contract {
  slug: string;
  document: Record<string, any>;
  /** path of the first `servers` URL: where the service router must be mounted */
  basePath: string;
  operations: Map<string, OperationInfo>;
}

const cache = new Map<string, Contract>();

/** The service's bundle, generated/<slug>/openapi.json: the stubs validate against exactly what ships. */
export function loadContract(slug: string): Contract {
  const cached = cache.get(slug);
  if (cached) return cached;
  const document = JSON.parse(readFileSync(path.join(generatedDir, slug, 'openapi.json'), 'utf8'));
  const server = document.servers?.[0]?.url ?? '/';
  const basePath = new URL(server, 'http://localhost').pathname.replace(/\/$/, '') || '/';
  const operations = new Map<string, OperationInfo>();
  for (const [p, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      const op = item[method];
      if (op?.operationId) operations.set(op.operationId, { operationId: op.operationId, method, path: p, schema: op });
    }
  }
  const contract = { slug, document, basePath, operations };
  cache.set(slug, contract);
  return contract;
}
