import { deref, listOperations, requestBodyOf, responsesOf, type Operation } from './operations.js';

/**
 * Changes between two bundles of one service that break existing clients: what a client sends may
 * now be refused, or what it reads may now be missing or of another shape.
 */
export interface BreakingChange {
  where: string; // `POST /projects`
  change: string;
}

type Doc = Record<string, any>;

/**
 * A schema with its `$ref` followed and its `allOf` members merged into one object (properties,
 * required, and the constraints of the first member that has them), so wrapping a schema in `allOf`
 * to add a rule is compared as the rule it adds.
 */
function flatten(doc: Doc, schema: any, depth = 0): any {
  const s = deref(doc, schema);
  if (!s || !Array.isArray(s.allOf) || depth > 8) return s;
  const merged: any = { ...s, allOf: undefined, properties: { ...(s.properties ?? {}) }, required: [...(s.required ?? [])] };
  for (const member of s.allOf.map((m: any) => flatten(doc, m, depth + 1)).filter(Boolean)) {
    Object.assign(merged.properties, member.properties ?? {});
    merged.required.push(...(member.required ?? []));
    for (const [key, value] of Object.entries(member)) {
      if (!['properties', 'required', 'allOf', 'description', 'title', 'examples'].includes(key) && !(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

const typesOf = (schema: any): string[] =>
  schema?.type === undefined ? [] : (Array.isArray(schema.type) ? schema.type : [schema.type]).slice().sort();

/** Request side: the new schema must accept everything the old one did. */
function requestSchema(before: Doc, after: Doc, a: any, b: any, at: string, out: string[], depth = 0): void {
  a = flatten(before, a);
  b = flatten(after, b);
  if (!a || !b || depth > 12) return;
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta.length && tb.length && ta.some((t) => !tb.includes(t) && !(t === 'integer' && tb.includes('number')))) {
    out.push(`${at || 'body'} type ${ta.join('|')} became ${tb.join('|')}`);
  }
  if (Array.isArray(a.enum) && Array.isArray(b.enum)) {
    for (const v of a.enum) if (!b.enum.includes(v)) out.push(`${at || 'body'} no longer accepts ${JSON.stringify(v)}`);
  }
  for (const [kw, tighter] of [['maximum', (x: number, y: number) => y < x], ['maxLength', (x: number, y: number) => y < x], ['maxItems', (x: number, y: number) => y < x], ['minimum', (x: number, y: number) => y > x], ['minLength', (x: number, y: number) => y > x], ['minItems', (x: number, y: number) => y > x]] as const) {
    if (typeof b[kw] === 'number' && (typeof a[kw] !== 'number' || tighter(a[kw], b[kw]))) out.push(`${at || 'body'} ${kw} tightened to ${b[kw]}`);
  }
  const required = new Set<string>(a.required ?? []);
  for (const name of b.required ?? []) if (!required.has(name)) out.push(`${at ? `${at}.` : ''}${name} is now required`);
  for (const [name, prop] of Object.entries<any>(a.properties ?? {})) {
    const next = b.properties?.[name];
    const path = at ? `${at}.${name}` : name;
    if (!next) {
      if (b.additionalProperties === false || b.unevaluatedProperties === false) out.push(`${path} was removed (now refused)`);
      continue;
    }
    requestSchema(before, after, prop, next, path, out, depth + 1);
  }
  if (a.items && b.items) requestSchema(before, after, a.items, b.items, `${at}[]`, out, depth + 1);
}

/** Response side: everything a client could rely on must still be there, with the same type. */
function responseSchema(before: Doc, after: Doc, a: any, b: any, at: string, out: string[], depth = 0): void {
  a = flatten(before, a);
  b = flatten(after, b);
  if (!a || !b || depth > 12) return;
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta.length && tb.length && tb.some((t) => !ta.includes(t) && !(t === 'integer' && ta.includes('number')))) {
    out.push(`${at || 'body'} type ${ta.join('|')} became ${tb.join('|')}`);
  }
  if (Array.isArray(a.enum) && Array.isArray(b.enum)) {
    for (const v of b.enum) if (!a.enum.includes(v)) out.push(`${at || 'body'} may now be ${JSON.stringify(v)}`);
  }
  const requiredAfter = new Set<string>(b.required ?? []);
  for (const name of a.required ?? []) {
    const path = at ? `${at}.${name}` : name;
    if (!b.properties?.[name]) out.push(`${path} was removed`);
    else if (!requiredAfter.has(name)) out.push(`${path} is no longer always present`);
  }
  for (const [name, prop] of Object.entries<any>(a.properties ?? {})) {
    const next = b.properties?.[name];
    if (next) responseSchema(before, after, prop, next, at ? `${at}.${name}` : name, out, depth + 1);
  }
  if (a.items && b.items) responseSchema(before, after, a.items, b.items, `${at}[]`, out, depth + 1);
}

export function breakingChanges(before: Doc, after: Doc): BreakingChange[] {
  const changes: BreakingChange[] = [];
  const afterOps = new Map(listOperations(after).map((o) => [o.label, o]));
  for (const old of listOperations(before)) {
    const add = (change: string) => changes.push({ where: old.label, change });
    const next = afterOps.get(old.label);
    if (!next) {
      add('operation removed');
      continue;
    }
    compareParameters(old, next, add);
    const bodyBefore = requestBodyOf(before, old);
    const bodyAfter = requestBodyOf(after, next);
    if (!bodyBefore?.required && bodyAfter?.required) add('request body is now required');
    for (const [type, media] of Object.entries<any>(bodyBefore?.content ?? {})) {
      const mediaAfter = bodyAfter?.content?.[type];
      if (!mediaAfter) add(`request body ${type} no longer accepted`);
      else {
        const out: string[] = [];
        requestSchema(before, after, media.schema, mediaAfter.schema, '', out);
        out.forEach((c) => add(`request ${c}`));
      }
    }
    const responsesBefore = responsesOf(before, old);
    const responsesAfter = responsesOf(after, next);
    for (const [status, response] of Object.entries<any>(responsesBefore)) {
      if (!/^2/.test(status)) continue;
      const responseAfter = responsesAfter[status];
      if (!responseAfter) {
        add(`response ${status} removed`);
        continue;
      }
      for (const [type, media] of Object.entries<any>(response.content ?? {})) {
        const mediaAfter = responseAfter.content?.[type];
        if (!mediaAfter) add(`response ${status} ${type} removed`);
        else {
          const out: string[] = [];
          responseSchema(before, after, media.schema, mediaAfter.schema, '', out);
          out.forEach((c) => add(`response ${status}: ${c}`));
        }
      }
    }
    const securityBefore = JSON.stringify(old.op.security ?? before.security ?? []);
    const securityAfter = JSON.stringify(next.op.security ?? after.security ?? []);
    if (securityBefore !== securityAfter) add(`security changed from ${securityBefore} to ${securityAfter}`);
  }
  for (const [name] of Object.entries<any>(before.webhooks ?? {})) {
    if (!after.webhooks?.[name]) changes.push({ where: `webhook ${name}`, change: 'event removed' });
  }
  return changes;
}

function compareParameters(old: Operation, next: Operation, add: (change: string) => void): void {
  const key = (p: any) => `${p.in}:${p.name}`;
  const before = new Map<string, any>((old.op.parameters ?? []).map((p: any) => [key(p), p]));
  for (const p of next.op.parameters ?? []) {
    const was = before.get(key(p));
    if (p.required && !was?.required) add(`${p.in} parameter ${p.name} is now required`);
  }
}
