/**
 * What every kind of fuzz request is made from: the valid pieces of a request for one operation
 * (parameters, body, credentials, from the contract), and their assembly into a request with what a
 * correct server does with it. The request families (fuzz/cases/) break one piece at a time.
 */
import fc from 'fast-check';
import { contentTypeOf, encodeBody, parsedBody } from './body-encoding.js';
import type { OperationModel, ParamModel, ServiceModel } from './contract-model.js';
import { chainOnce } from './chain-once.js';
import type { LiveIds } from './live-ids.js';
import { percentEncode, type BodyPart, type FuzzRequest } from './wire.js';
import { serializeParameter, type SerializedParameter } from '../parameter-style.js';
import { isJsonType } from '../../../server-stubs/lib/media-types.js';

/** The valid pieces of a request for one operation, before they are put on the wire. */
export interface Parts {
  /** path parameter values, raw (encoded when the path is built) or already encoded (`encoded`) */
  path: Record<string, { raw: string } | { encoded: string }>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: { mediaType: string; value: unknown } | undefined;
}

export interface AssembleOptions {
  case: string;
  expect?: FuzzRequest['expect'];
  credentials?: Record<string, string>;
  method?: string;
  body?: BodyPart[] | null;
  contentType?: string | null;
  unknownQuery?: string[];
}

export const isParamInPath = (p: ParamModel) => p.in === 'path';
/** A header carries visible ASCII only: anything else cannot even be sent. */
const sendable = (value: string) => value.replace(/[^\x20-\x7e]/g, '?');
export const jsonMedia = (m: OperationModel) => m.body?.media.find((x) => isJsonType(x.type));

export type RequestKit = ReturnType<typeof createRequestKit>;

export function createRequestKit(model: ServiceModel, liveIds?: LiveIds) {
  const { schemas } = model;
  const ops = model.operations;
  const partsCache = new Map<OperationModel, fc.Arbitrary<Parts>>();

  /** A value of a parameter: an id the server handed out, its examples, or its schema. */
  function paramValue(p: ParamModel): fc.Arbitrary<string> {
    const fromSchema = schemas.valid(p.schema).map(String);
    const examples = p.examples.map(String);
    const live = p.in === 'path' || p.in === 'query' ? liveIds?.arbitraryFor(p.name, schemas.resolve(p.schema)) : undefined;
    const choices: Array<fc.WeightedArbitrary<string>> = [{ arbitrary: fromSchema, weight: 1 }];
    if (examples.length) choices.unshift({ arbitrary: fc.constantFrom(...examples), weight: isParamInPath(p) ? 2 : 1 });
    if (live) choices.unshift({ arbitrary: live, weight: 3 });
    return choices.length === 1 ? fromSchema : fc.oneof(...choices);
  }

  /** A styled parameter's value (an object, an array, a label segment) as it goes on the wire. */
  function styledValue(p: ParamModel): fc.Arbitrary<SerializedParameter> {
    const values = p.examples.length ? fc.oneof(fc.constantFrom(...p.examples), schemas.valid(p.schema)) : schemas.valid(p.schema);
    return values.map((v) => serializeParameter(p.parameter, v));
  }

  function validParts(m: OperationModel): fc.Arbitrary<Parts> {
    const hit = partsCache.get(m);
    if (hit) return hit;
    const path: Record<string, fc.Arbitrary<{ raw: string } | { encoded: string }>> = {};
    const query: Array<fc.Arbitrary<Array<[string, string]>>> = [];
    const headers: Array<fc.Arbitrary<Array<[string, string]>>> = [];
    const cookies: Array<fc.Arbitrary<string[]>> = [];
    const optional = <T>(p: ParamModel, arb: fc.Arbitrary<T[]>) => (p.required ? arb : fc.option(arb, { nil: undefined }).map((v) => v ?? []));
    for (const p of m.params) {
      if (p.styled) {
        const wire = styledValue(p);
        // An empty or dot segment (`..` from a label-style `.`) would address another path.
        if (p.in === 'path') path[p.name] = wire.filter((w) => Boolean(w.path) && !/^(?:\.|%2e){1,2}$/i.test(w.path!)).map((w) => ({ encoded: w.path! }));
        else if (p.in === 'query') query.push(optional(p, wire.map((w) => w.query ?? [])));
        else if (p.in === 'header') headers.push(optional(p, wire.map((w): Array<[string, string]> => (w.header === undefined ? [] : [[p.name, sendable(w.header)]]))));
        else if (p.in === 'cookie') cookies.push(optional(p, wire.map((w) => (w.cookie ? [sendable(w.cookie)] : []))));
        continue;
      }
      const value = paramValue(p);
      if (p.in === 'path') path[p.name] = value.map((raw) => ({ raw }));
      else if (p.in === 'query') query.push(optional(p, value.map((v) => [[p.name, v] as [string, string]])));
      else if (p.in === 'header') headers.push(optional(p, value.map((v) => [[p.name, sendable(v)] as [string, string]])));
      // Cookie values travel as they are: no separators or spaces in them.
      else if (p.in === 'cookie') cookies.push(optional(p, value.map((v) => [`${p.name}=${encodeURIComponent(v)}`])));
    }
    const body = m.body
      ? chainOnce(fc.integer({ min: 0, max: m.body.media.length - 1 }), (i) => {
          const media = m.body!.media[i]!;
          return (media.schema ? schemas.valid(media.schema) : fc.jsonValue({ maxDepth: 2 })).map((value) => ({ mediaType: media.type, value }));
        })
      : fc.constant(undefined);
    const parts = fc.record({ path: fc.record(path), query: fc.tuple(...query), headers: fc.tuple(...headers), cookies: fc.tuple(...cookies), body }).map(
      (r): Parts => {
        const cookie = r.cookies.flat().join('; ');
        return {
          path: r.path,
          query: r.query.flat(),
          headers: { ...Object.fromEntries(r.headers.flat()), ...(cookie ? { cookie } : {}) },
          body: r.body,
        };
      },
    );
    partsCache.set(m, parts);
    return parts;
  }

  function buildPath(template: string, values: Parts['path']): string {
    return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = values[name];
      if (!v) return 'missing';
      return 'encoded' in v ? v.encoded : percentEncode(v.raw);
    });
  }

  /** Is this set of valid pieces really valid (the body generator is best effort)? */
  function partsValid(m: OperationModel, parts: Parts): boolean {
    for (const p of m.params.filter((param) => !param.styled)) {
      const given = p.in === 'path' ? parts.path[p.name] : p.in === 'query' ? parts.query.find(([k]) => k === p.name) : undefined;
      if (p.in === 'path' && given && 'raw' in given && model.paramInvalid(p, given.raw)) return false;
      if (p.in === 'query' && Array.isArray(given) && model.paramInvalid(p, given[1])) return false;
    }
    if (parts.body) {
      const parsed = parsedBody(parts.body.mediaType, encodeBody(parts.body.mediaType, parts.body.value));
      if (!parsed.ok || model.bodyErrors(m, parts.body.mediaType, parsed.value).length > 0) return false;
    }
    return true;
  }

  function assemble(m: OperationModel, parts: Parts, o: AssembleOptions): FuzzRequest {
    const credentials = o.credentials ?? m.credentials.valid ?? {};
    const headers: Record<string, string> = { ...credentials, ...parts.headers };
    // A cookie parameter and a cookie credential share the one Cookie header.
    const credentialCookie = Object.entries(credentials).find(([k]) => k.toLowerCase() === 'cookie')?.[1];
    if (credentialCookie && parts.headers.cookie) headers.cookie = `${credentialCookie}; ${parts.headers.cookie}`;
    // An apiKey in the query goes with the valid credential, not with a variant that replaces it.
    const credentialQuery = o.credentials ? [] : (m.credentials.validQuery ?? []);
    let body: BodyPart[] | undefined;
    if (o.body !== undefined) body = o.body ?? undefined;
    else if (parts.body) body = encodeBody(parts.body.mediaType, parts.body.value);
    const contentType = o.contentType !== undefined ? o.contentType : parts.body && contentTypeOf(parts.body.mediaType);
    if (body && contentType) headers['content-type'] = contentType;
    let expect = o.expect;
    if (!expect) expect = m.credentials.valid && partsValid(m, parts) ? 'accept' : 'any';
    return {
      case: o.case,
      method: o.method ?? m.operation.method.toUpperCase(),
      path: buildPath(m.operation.path, parts.path),
      query: [...parts.query, ...credentialQuery],
      headers,
      body,
      expect,
      unknownQuery: o.unknownQuery,
      aim: m.label,
    };
  }

  const where = (predicate: (m: OperationModel) => boolean) => ops.filter(predicate);
  /** The operation, then a request for it: shrinks towards the first operation and simpler values. */
  const forOps = (list: OperationModel[], build: (m: OperationModel) => fc.Arbitrary<FuzzRequest>) =>
    list.length ? chainOnce(fc.constantFrom(...list), build) : undefined;

  /** One parameter of a valid request replaced by a raw value. */
  function withParam(parts: Parts, p: ParamModel, raw: string, encodedPath = false): Parts {
    if (p.in === 'path') return { ...parts, path: { ...parts.path, [p.name]: encodedPath ? { encoded: raw } : { raw } } };
    if (p.in === 'header') return { ...parts, headers: { ...parts.headers, [p.name]: raw.replace(/[^\x20-\x7e]/g, '?') } };
    return { ...parts, query: [...parts.query.filter(([k]) => k !== p.name), [p.name, raw]] };
  }

  /** Query parameter names the operation does not declare, which a tolerant reader ignores (G-1). */
  const unknownNames = (m: OperationModel) =>
    fc.constantFrom('_', 'utm_source', 'callback', 'fields', 'debug', 'cacheBuster').filter((n) => !m.params.some((p) => p.name === n));

  return { model, schemas, ops, paramValue, validParts, buildPath, assemble, withParam, where, forOps, unknownNames };
}
