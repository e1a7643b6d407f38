/**
 * `Prefer: code=NNN` and `Prefer: example=name`: which declared answer a client asks for. The mock's
 * front resolves them before Prism sees them; the contract stub answers them itself.
 *
 * Prism (5.14) answers a forced status with the wrong example when no example is named: on
 * `GET /mail/v1/contacts`, `code=403` (or 401, 429, 400) answered `/v1/send`'s 400 example, while
 * `code=403, example=missingScope` answers the 403 example. So the front always names the example:
 * the first one of the status asked for, or, for `example=name` alone, the status that has it.
 * A status or example the operation does not have is the client's mistake, answered as one.
 */
import type { OpenAPI3, ReferenceObject, ResponseObject } from 'openapi-typescript';
import { deref, operationAt } from './openapi/document.js';
import { badInputStatus, declares, declaredStatuses, responseKeyFor, type OperationInfo } from './contract.js';

export type Preference =
  | { kind: 'none' }
  /** a preference no declared answer can honour: dropped, so Prism answers as if none was given */
  | { kind: 'ignored' }
  /** the Prefer header to forward */
  | { kind: 'pinned'; header: string }
  /** the operation cannot answer what was asked: answer `status` (declared) with `message` */
  | { kind: 'refused'; status: number; message: string };

/** How a refusal names what the client asked: the `Prefer` header, or Prism's `?__code=` query parameters. */
export type PreferenceSource = 'Prefer: ' | '?__';

/** `code=403, example="missingScope"; dynamic=false` -> `{code: '403', example: 'missingScope', dynamic: 'false'}`. */
export function parsePrefer(header: string | string[] | undefined): Map<string, string> {
  const preferences = new Map<string, string>();
  for (const part of [header ?? []].flat().join(',').split(/[,;]/)) {
    const at = part.indexOf('=');
    const name = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase();
    if (name) preferences.set(name, at === -1 ? '' : part.slice(at + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return preferences;
}

/** The answer a request's preferences pick: a declared status (its response key) and maybe a named example. */
export type PreferredAnswer =
  | { kind: 'none' }
  | { kind: 'ignored' }
  | { kind: 'chosen'; status: string; example: string | undefined; rest: string[] }
  | { kind: 'refused'; status: number; message: string };

/**
 * What a request's preferences ask of an operation of `served` (the document answered from): the
 * status asked for with the first of its examples unless one is named, or, for `example=name` alone,
 * the status that has it.
 */
export function preferredAnswer(served: OpenAPI3, operation: OperationInfo, header: string | string[] | undefined, accept: string | undefined, asked: PreferenceSource = 'Prefer: '): PreferredAnswer {
  const preferences = parsePrefer(header);
  const code = preferences.get('code');
  const example = preferences.get('example');
  if (code === undefined && example === undefined) return { kind: 'none' };
  const op = operationAt(served, operation.path, operation.method) ?? operation.op;
  const rest = [...preferences].filter(([name]) => name !== 'code' && name !== 'example').map(([name, value]) => (value ? `${name}=${value}` : name));

  if (code !== undefined) {
    const status = Number(code);
    if (!/^\d{3}$/.test(code) || !declares(operation, status)) {
      return refusal(operation, `${asked}code=${code} asks for a status ${operation.id} does not declare (it declares ${declaredStatuses(operation).join(', ')})`);
    }
    const names = exampleNames(served, op.responses?.[responseKeyFor(operation, status)!], accept);
    if (example !== undefined && !names.includes(example)) {
      return refusal(operation, `${asked}example=${example}: the ${code} answer of ${operation.id} has no such example (${names.join(', ') || 'none is named'})`);
    }
    return { kind: 'chosen', status: code, example: example ?? names[0], rest };
  }
  const byStatus = Object.keys(op.responses ?? {})
    .filter((key) => /^\d{3}$/.test(key))
    .sort()
    .map((key) => [key, exampleNames(served, op.responses?.[key], accept)] as const);
  const found = byStatus.find(([, names]) => names.includes(example!));
  if (!found) {
    const all = byStatus.flatMap(([key, names]) => names.map((n) => `${n} (${key})`));
    return refusal(operation, `${asked}example=${example}: ${operation.id} has no such example (${all.join(', ') || 'none is named'})`);
  }
  return { kind: 'chosen', status: found[0], example, rest };
}

/**
 * What the mock's front does with a request's preferences. `served` is the document Prism serves
 * (its stream examples renamed), so the example names are Prism's.
 */
export function resolvePreference(served: OpenAPI3, operation: OperationInfo, header: string | string[] | undefined, accept: string | undefined, asked: PreferenceSource = 'Prefer: '): Preference {
  const answer = preferredAnswer(served, operation, header, accept, asked);
  if (answer.kind !== 'chosen') return answer;
  return { kind: 'pinned', header: [`code=${answer.status}`, ...(answer.example ? [`example=${answer.example}`] : []), ...answer.rest].join(', ') };
}

/** The named examples of a response, for the media type the client accepts (else the first). */
function exampleNames(document: OpenAPI3, response: ResponseObject | ReferenceObject | undefined, accept: string | undefined): string[] {
  const content = deref(document, response)?.content ?? {};
  const types = Object.keys(content);
  const wanted = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim()).filter((t) => t && t !== '*/*');
  const type = types.find((t) => wanted.includes(t)) ?? types[0];
  return type ? Object.keys(content[type]?.examples ?? {}) : [];
}

/**
 * A preference the operation cannot honour, answered as a bad request where the operation declares
 * one; where it declares neither 400 nor 422 no answer would be in the contract, so the preference
 * is ignored, as RFC 7240 lets a server do.
 */
function refusal(operation: OperationInfo, message: string): { kind: 'refused'; status: number; message: string } | { kind: 'ignored' } {
  const status = badInputStatus(operation);
  return declares(operation, status) ? { kind: 'refused', status, message } : { kind: 'ignored' };
}
