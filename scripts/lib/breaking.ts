import type { OpenAPI3, ParameterObject } from 'openapi-typescript';
import { deref, listOperations, listWebhooks, requestBodyOf, responsesOf, type JsonDocument } from '../../server-stubs/lib/openapi/document.js';
import { isSchemaNode, type Schema, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';

/**
 * Changes between two bundles of one service that break existing clients: what a client sends may
 * now be refused, or what it reads may now be missing or of another shape.
 *
 * oasdiff (scripts/lib/breaking-gate.ts) is the gate for `paths`; this comparison covers what it
 * does not: the 3.1 top-level `webhooks` (payloads and headers the subscribers read), the frames of
 * `text/event-stream` responses (`oneOf` frame unions) and the standalone JSON Schema files.
 */
export interface BreakingChange {
  where: string; // `POST /projects`, `webhook formA:contact.created`, `schema Block.json`
  change: string;
}

/**
 * Which side of the wire the schema is on. `write`: the client sends it, so the new schema must
 * accept everything the old one did. `read`: the client reads it, so everything the client could
 * rely on must still be there, with no value the old schema excluded. A standalone schema is used
 * both ways. `frames`: a union of stream frames (the frame schema's `oneOf`, or its `data`'s where
 * the frames are told apart inside the data), where a frame kind that is no longer sent breaks a
 * reader waiting for it. A stream's findings name the operation by its operationId, and a removed
 * property that was required says so, as oasdiff's findings on responses do.
 */
interface Sides {
  write: boolean;
  read: boolean;
  frames?: boolean;
}
const READ: Sides = { write: false, read: true };
const BOTH: Sides = { write: true, read: true };

/**
 * A schema with its `$ref` followed and its `allOf` members merged into one object (properties,
 * required, and the constraints of the first member that has them), so wrapping a schema in `allOf`
 * to add a rule is compared as the rule it adds.
 */
function flatten(doc: JsonDocument, schema: unknown, depth = 0): SchemaNode | undefined {
  const s = deref(doc, schema);
  if (!isSchemaNode(s)) return undefined;
  if (!Array.isArray(s.allOf) || depth > 8) return s;
  const properties: Record<string, Schema> = { ...(s.properties ?? {}) };
  const required: string[] = [...(s.required ?? [])];
  const merged: SchemaNode = { ...s, allOf: undefined, properties, required };
  for (const member of s.allOf.map((m) => flatten(doc, m, depth + 1)).filter(isSchemaNode)) {
    Object.assign(properties, member.properties ?? {});
    required.push(...(member.required ?? []));
    for (const [key, value] of Object.entries(member)) {
      if (!['properties', 'required', 'allOf', 'description', 'title', 'examples'].includes(key) && !(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

const typesOf = (schema: SchemaNode): string[] =>
  schema.type === undefined ? [] : (Array.isArray(schema.type) ? schema.type : [schema.type]).slice().sort();

/** `enum`, or a `const` as a one-value enum. */
const valuesOf = (schema: unknown): unknown[] | undefined =>
  !isSchemaNode(schema) ? undefined : Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;

const sameValue = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;

/** A name for each member of a `oneOf`/`anyOf`: its discriminator value, its `$ref` name or title, else its position. */
function memberKeys(doc: JsonDocument, union: SchemaNode, members: Schema[]): string[] {
  const flat = members.map((m) => flatten(doc, m));
  const constOf = (member: SchemaNode | undefined, name: string) => {
    const values = valuesOf(deref(doc, member?.properties?.[name]));
    return values?.length === 1 ? values[0] : undefined;
  };
  // Without a discriminator, a property that holds one fixed value in every member (an SSE frame's `event`).
  const property: string | undefined =
    union.discriminator?.propertyName ??
    Object.keys(flat[0]?.properties ?? {}).find((name) => flat.every((m) => constOf(m, name) !== undefined));
  const byRef = new Map<string, string>(Object.entries(union.discriminator?.mapping ?? {}).map(([k, ref]) => [ref, k]));
  return members.map((raw, i) => {
    const ref = isSchemaNode(raw) ? raw.$ref : undefined;
    if (typeof ref === 'string' && byRef.has(ref)) return byRef.get(ref)!;
    const member = flatten(doc, raw);
    const tag = property ? member?.properties?.[property] : undefined;
    const value = valuesOf(deref(doc, tag));
    if (value?.length === 1) return String(value[0]);
    if (typeof ref === 'string') return ref.split('/').pop()!.replace(/\.json$/, '');
    return member?.title ?? `#${i + 1}`;
  });
}

function compareSchema(before: JsonDocument, after: JsonDocument, rawA: unknown, rawB: unknown, at: string, out: string[], sides: Sides, depth = 0): void {
  const a = flatten(before, rawA);
  const b = flatten(after, rawB);
  if (!a || !b || depth > 12) return;
  const refA = isSchemaNode(rawA) ? rawA.$ref : undefined;
  const refB = isSchemaNode(rawB) ? rawB.$ref : undefined;
  const label = at || 'body';
  const dot = (name: string) => (at ? `${at}.${name}` : name);

  // A reference to another schema file (standalone sets): each file is compared on its own.
  if (typeof refA === 'string' && typeof refB === 'string' && !refA.startsWith('#') && refA !== refB) {
    out.push(`${label} now refers to ${refB} instead of ${refA}`);
    return;
  }

  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta.length && tb.length) {
    const narrower = sides.write && ta.some((t) => !tb.includes(t) && !(t === 'integer' && tb.includes('number')));
    const wider = sides.read && tb.some((t) => !ta.includes(t) && !(t === 'integer' && ta.includes('number')));
    if (narrower || wider) out.push(`${label} type ${ta.join('|')} became ${tb.join('|')}`);
  }

  const va = valuesOf(a);
  const vb = valuesOf(b);
  if (va && vb) {
    if (sides.write) for (const v of va) if (!vb.some((w) => sameValue(v, w))) out.push(`${label} no longer accepts ${JSON.stringify(v)}`);
    if (sides.read) for (const v of vb) if (!va.some((w) => sameValue(v, w))) out.push(`${label} may now be ${JSON.stringify(v)}`);
  } else if (va && !vb && sides.read) out.push(`${label} is no longer limited to ${va.map((v) => JSON.stringify(v)).join(', ')}`);
  else if (!va && vb && sides.write) out.push(`${label} is now limited to ${vb.map((v) => JSON.stringify(v)).join(', ')}`);

  for (const [bounds, tighter] of [[UPPER, (x: number, y: number) => y < x], [LOWER, (x: number, y: number) => y > x]] as const) {
    for (const kw of bounds) {
      const x = a[kw];
      const y = b[kw];
      if (sides.write && typeof y === 'number' && (typeof x !== 'number' || tighter(x, y))) out.push(`${label} ${kw} tightened to ${y}`);
      else if (sides.read && typeof x === 'number' && (typeof y !== 'number' || tighter(y, x))) out.push(`${label} ${kw} ${typeof y === 'number' ? `loosened to ${y}` : 'no longer limited'}`);
    }
  }
  if (sides.write && typeof b.pattern === 'string' && b.pattern !== a.pattern) out.push(`${label} pattern changed to ${b.pattern}`);

  if (sides.write) {
    const required = new Set<string>(a.required ?? []);
    for (const name of b.required ?? []) if (!required.has(name)) out.push(`${dot(name)} is now required`);
  }
  const requiredAfter = new Set<string>(b.required ?? []);
  const requiredBefore = new Set<string>(a.required ?? []);
  for (const [name, prop] of Object.entries(a.properties ?? {})) {
    const next = b.properties?.[name];
    if (!next) {
      // A reader could count on a required one being there: say so, as oasdiff does for responses.
      if (sides.read) out.push(`${dot(name)} was removed${requiredBefore.has(name) ? ' (it was required)' : ''}`);
      else if (sides.write && (b.additionalProperties === false || b.unevaluatedProperties === false)) out.push(`${dot(name)} was removed (now refused)`);
      continue;
    }
    if (sides.read && requiredBefore.has(name) && !requiredAfter.has(name)) out.push(`${dot(name)} is no longer always present`);
    // Frames told apart inside their data (`data.type`, no `event:` line): `data`'s union is the frame union.
    const data = flatten(before, prop);
    const framesInData = sides.frames === true && name === 'data' && !Array.isArray(a.oneOf ?? a.anyOf) && Array.isArray(data?.oneOf ?? data?.anyOf);
    compareSchema(before, after, prop, next, dot(name), out, { ...sides, frames: framesInData }, depth + 1);
  }
  if (sides.read) {
    // A name required without a property schema (a required list that names inherited fields).
    for (const name of requiredBefore) if (!a.properties?.[name] && !requiredAfter.has(name)) out.push(`${dot(name)} is no longer always present`);
  }
  if (sides.write && a.additionalProperties !== false && b.additionalProperties === false && a.unevaluatedProperties !== false) {
    out.push(`${label} no longer accepts other properties`);
  }
  if (a.items && b.items) compareSchema(before, after, a.items, b.items, `${at}[]`, out, { ...sides, frames: false }, depth + 1);

  for (const kw of ['oneOf', 'anyOf'] as const) {
    const ma = Array.isArray(a[kw]) ? a[kw] : undefined;
    const mb = Array.isArray(b[kw]) ? b[kw] : undefined;
    if (!ma || !mb) continue;
    const ka = memberKeys(before, a, ma);
    const kb = memberKeys(after, b, mb);
    const what = sides.frames ? 'frame' : 'variant';
    ka.forEach((key, i) => {
      const j = kb.indexOf(key);
      if (j < 0) {
        if (sides.write) out.push(`${label} no longer accepts ${what} ${key}`);
        else if (sides.frames) out.push(`${what} ${key} is no longer sent`);
        return;
      }
      compareSchema(before, after, ma[i]!, mb[j]!, sides.frames ? `${what} ${key}${at ? `.${at}` : ''}` : `${label}(${key})`, out, { ...sides, frames: false }, depth + 1);
    });
    if (sides.read) for (const key of kb) if (!ka.includes(key)) out.push(sides.frames ? `${what} ${key} may now be sent` : `${label} may now be ${what} ${key}`);
  }
}

export const EVENT_STREAM = 'text/event-stream';

/** What oasdiff does not compare between two bundles of one service: the frames of its event streams, and its webhooks. */
export function breakingChanges(before: OpenAPI3, after: OpenAPI3): BreakingChange[] {
  return [...streamChanges(before, after), ...webhookChanges(before, after)];
}

/**
 * The frames of each `text/event-stream` success response, read by the client. A removed operation
 * or response is oasdiff's finding; a stream's are ours alone, so they name the operation too.
 */
function streamChanges(before: OpenAPI3, after: OpenAPI3): BreakingChange[] {
  const changes: BreakingChange[] = [];
  const afterOps = new Map(listOperations(after).map((o) => [o.label, o]));
  for (const old of listOperations(before)) {
    const next = afterOps.get(old.label);
    if (!next) continue;
    const add = (change: string) => changes.push({ where: old.label, change });
    const responsesAfter = responsesOf(after, next);
    for (const [status, response] of Object.entries(responsesOf(before, old))) {
      const media = response.content?.[EVENT_STREAM];
      const responseAfter = responsesAfter[status];
      if (!/^2/.test(status) || !media || !responseAfter) continue;
      const mediaAfter = responseAfter.content?.[EVENT_STREAM];
      if (!mediaAfter) {
        add(`response ${status} ${EVENT_STREAM} removed`);
        continue;
      }
      const out: string[] = [];
      compareSchema(before, after, media.schema, mediaAfter.schema, '', out, { ...READ, frames: true });
      const named = typeof old.op.operationId === 'string' ? ` (${old.op.operationId})` : '';
      out.forEach((c) => add(`response ${status} stream${named}: ${c}`));
    }
  }
  return changes;
}

/**
 * The webhooks the service posts: what a subscriber reads (the payload, the headers) is compared on
 * the read side; an event that is no longer posted is removed for its subscribers.
 */
function webhookChanges(before: OpenAPI3, after: OpenAPI3): BreakingChange[] {
  const changes: BreakingChange[] = [];
  const afterHooks = new Map(listWebhooks(after).map((o) => [o.label, o]));
  for (const old of listWebhooks(before)) {
    const where = `webhook ${old.path}`;
    const add = (change: string) => changes.push({ where, change });
    const next = afterHooks.get(old.label);
    if (!next) {
      add(old.method === 'post' ? 'event removed' : `${old.method.toUpperCase()} event removed`);
      continue;
    }
    const headersAfter = new Map<string, ParameterObject>(next.op.parameters.filter((p) => p.in === 'header').map((p) => [p.name.toLowerCase(), p]));
    for (const p of old.op.parameters.filter((p) => p.in === 'header')) {
      const now = headersAfter.get(p.name.toLowerCase());
      if (!now) add(`header ${p.name} is no longer sent`);
      else {
        if (p.required && !now.required) add(`header ${p.name} is no longer always sent`);
        const out: string[] = [];
        compareSchema(before, after, p.schema, now.schema, `header ${p.name}`, out, READ);
        out.forEach(add);
      }
    }
    const bodyBefore = requestBodyOf(before, old);
    const bodyAfter = requestBodyOf(after, next);
    if (bodyBefore?.required && bodyAfter && !bodyAfter.required) add('payload is no longer always sent');
    for (const [type, media] of Object.entries(bodyBefore?.content ?? {})) {
      const mediaAfter = deref(after, bodyAfter?.content?.[type]);
      if (!mediaAfter) add(`payload ${type} no longer sent`);
      else {
        const out: string[] = [];
        compareSchema(before, after, deref(before, media).schema, mediaAfter.schema, '', out, READ);
        out.forEach((c) => add(`payload ${c}`));
      }
    }
  }
  return changes;
}

/**
 * One standalone JSON Schema file, before and after. Such a schema may describe what a client
 * sends as well as what it reads, so both sides count: a newly required field or a narrower enum
 * breaks a writer, a removed field or a new enum value a reader, a changed type both.
 */
export function schemaBreakingChanges(name: string, before: JsonDocument | undefined, after: JsonDocument | undefined): BreakingChange[] {
  const where = `schema ${name}`;
  if (!before) return [];
  if (!after) return [{ where, change: 'schema removed' }];
  const out: string[] = [];
  compareSchema(before, after, before, after, '', out, BOTH);
  return out.map((change) => ({ where, change: change.replace(/^body /, '') }));
}
