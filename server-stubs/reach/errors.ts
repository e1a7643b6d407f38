import type { MediaTypeObject } from 'openapi-typescript';
import { deref, requestBodyOf } from '../lib/openapi/document.js';
import { isSchemaNode } from '../lib/openapi/json-schema.js';
import { loadContract } from '../lib/contract.js';
import { INVALID_JSON, issuesByField, type ErrorMapper, type Failure } from '../lib/errors.js';

/**
 * The lead-outreach error body, `{error}` plus extras, for every failure of the service, with the
 * statuses of document 002's table (DECISIONS reach-2):
 * - 400 `{error}`: invalid JSON, a malformed UUID in the path, a bad query, `Invalid returnUrl`;
 * - 400 `{error: {fieldErrors, formErrors}}`: a body that lacks a required field (neither of an
 *   "exactly one of" pair, none of an "at least one of" group) or holds a malformed UUID;
 * - 422 `{error: {fieldErrors, formErrors}}`: a body that parsed and has its fields but breaks its
 *   schema otherwise (wrong types, limits, both of an exclusive pair), or a handler's rule.
 */
export const reachErrors: ErrorMapper = (failure) => {
  const plain = (error = failure.message) => ({ status: failure.status, body: { error } });
  switch (failure.kind) {
    case 'validation':
      if (isBodyShapeFailure(failure)) return bodyFailure(failure);
      return plain(badRequestMessage(failure));
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'unauthenticated':
    case 'not_found':
    case 'method_not_allowed':
    case 'rate_limited':
      return plain();
    case 'forbidden':
      return { status: failure.status, body: { error: failure.message, requiredScope: failure.extras?.requiredScope } };
    case 'api':
      if (failure.status === 422) {
        return { status: 422, body: { error: { fieldErrors: failure.extras?.fieldErrors ?? {}, formErrors: failure.extras?.formErrors ?? [] } } };
      }
      // 402's two published forms and the 429 credit extras come from the handler as extras.
      return { status: failure.status, body: { error: failure.message, ...(failure.code !== undefined && { code: failure.code }), ...failure.extras } };
    case 'not_implemented':
    case 'internal':
      return plain();
  }
};

function isBodyShapeFailure(failure: Failure): boolean {
  if (failure.code === INVALID_JSON || !failure.issues?.length) return false;
  return failure.issues.every((i) => i.path === 'body' || i.path.startsWith('body.'));
}

const MISSING = /^must have required property '(.+)'$/;
const MALFORMED_UUID = 'must match format "uuid"';
const ONE_OF = 'must match exactly one schema in oneOf';
const ANY_OF = 'must match a schema in anyOf';

/** A body's "exactly one of" (`oneOf`) or "at least one of" (`anyOf`) group: branches that each require one field. */
interface FieldGroup {
  kind: 'oneOf' | 'anyOf';
  names: string[];
}

/**
 * A body that breaks its schema: 400 when a field is missing or a UUID is malformed, else 422; both
 * as zod's flatten() shape, issues on a field under `fieldErrors` and on the body as a whole (a
 * field group) under `formErrors`.
 */
function bodyFailure(failure: Failure) {
  const issues = (failure.issues ?? []).map((i) => ({ ...i, path: i.path.split('.').slice(0, 2).join('.') }));
  const groups = fieldGroupsOf(failure.operation?.id);
  const formErrors: string[] = [];
  let rest = issues;
  let missing = false;
  for (const kind of ['oneOf', 'anyOf'] as const) {
    if (!rest.some((i) => i.path === 'body' && i.message === (kind === 'oneOf' ? ONE_OF : ANY_OF))) continue;
    const group = groups.find((g) => g.kind === kind);
    if (!group) continue;
    const groupMissing = (i: { path: string; message: string }) => i.path.startsWith('body.') && group.names.includes(MISSING.exec(i.message)?.[1] ?? '');
    if (rest.some(groupMissing)) {
      // None of the group given: a missing field (reach-2), said once for the group.
      missing = true;
      formErrors.push(`${kind === 'oneOf' ? 'Exactly one' : 'At least one'} of ${listed(group.names, 'or')} is needed`);
      rest = rest.filter((i) => !groupMissing(i));
    } else if (kind === 'oneOf') {
      formErrors.push(`${listed(group.names, 'and')} are exclusive: give exactly one`);
    }
    rest = rest.filter((i) => !(i.path === 'body' && i.message === (kind === 'oneOf' ? ONE_OF : ANY_OF)));
  }
  formErrors.push(...rest.filter((i) => i.path === 'body').map((i) => i.message));
  const fieldIssues = rest.filter((i) => i.path !== 'body');
  if (fieldIssues.some((i) => MISSING.test(i.message) || i.message === MALFORMED_UUID)) missing = true;
  const fieldErrors = issuesByField({ ...failure, issues: fieldIssues });
  return { status: missing ? 400 : 422, body: { error: { fieldErrors: { ...fieldErrors }, formErrors } } };
}

/** `a`, `a or b`, `a, b or c`. */
function listed(names: string[], last: 'and' | 'or'): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)}`;
}

const groupsByOperation = new Map<string, FieldGroup[]>();

/** The field groups of an operation's JSON body, read from the contract (at its root, or in an `allOf` part). */
function fieldGroupsOf(operationId: string | undefined): FieldGroup[] {
  if (operationId === undefined) return [];
  const known = groupsByOperation.get(operationId);
  if (known) return known;
  const contract = loadContract('reach');
  const operation = contract.operations.get(operationId);
  const body = operation && requestBodyOf(contract.document, operation);
  const media = body?.content?.['application/json'] ? deref<MediaTypeObject>(contract.document, body.content['application/json']) : undefined;
  const schema: unknown = deref(contract.document, media?.schema);
  const groups: FieldGroup[] = [];
  const parts = isSchemaNode(schema) ? [schema, ...(schema.allOf ?? []).map((s): unknown => deref(contract.document, s))] : [];
  for (const part of parts) {
    if (!isSchemaNode(part)) continue;
    for (const kind of ['oneOf', 'anyOf'] as const) {
      // A group is a choice of branches that each require exactly one field: that field's name.
      const names = (part[kind] ?? []).map((b) => (isSchemaNode(b) && b.required?.length === 1 ? b.required[0] : undefined));
      if (names.length > 0 && names.every((n) => n !== undefined)) groups.push({ kind, names });
    }
  }
  groupsByOperation.set(operationId, groups);
  return groups;
}

function badRequestMessage(failure: Failure): string {
  const issue = failure.issues?.[0];
  if (!issue) return failure.message;
  const [place, name] = issue.path.split('.');
  if (place === 'params' || place === 'path') return /uuid/.test(issue.message) ? `Malformed UUID in the path: ${name}` : `Invalid path parameter ${name}: ${issue.message}`;
  if (place === 'query' && name === 'returnUrl') return 'Invalid returnUrl';
  if (place === 'query') return `Invalid query parameter ${name}: ${issue.message}`;
  return issue.path ? `${issue.path} ${issue.message}` : issue.message;
}
