/**
 * The request generator of one HTTP service: about half valid requests built from the contract
 * (parameters, bodies and credentials from their schemas), half bad input of every kind the
 * framework must survive. Each case says what a correct server does with it (`expect`), so the
 * oracle can tell "refused as it should" from "accepted garbage".
 */
import fc from 'fast-check';
import { encodeJson, nastyString, Repeat, withOwnKey, type Mutant } from './arbitraries.js';
import type { OperationModel, ParamModel, PathModel, ServiceModel } from './contract-model.js';
import type { LiveIds } from './live-ids.js';
import { bodyText, percentEncode, type BodyPart, type FuzzRequest } from './wire.js';
import type { JsonNode } from '../../../server-stubs/lib/openapi/document.js';
import { serializeParameter, type SerializedParameter } from '../parameter-style.js';
import { isFormType, isJsonType, isMultipartType } from '../../../server-stubs/lib/media-types.js';

/** The valid pieces of a request for one operation, before they are put on the wire. */
interface Parts {
  /** path parameter values, raw (encoded when the path is built) or already encoded (`encoded`) */
  path: Record<string, { raw: string } | { encoded: string }>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: { mediaType: string; value: unknown } | undefined;
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];
const TRAVERSALS = [
  '..%2F..%2Fetc%2Fpasswd',
  '..%2f..%2f..%2f..%2fwindows%2fwin.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%5C..%5Cetc%5Cpasswd',
  '%252e%252e%252f',
  '..',
  '%2e%2e',
  '..%00',
  '%00',
  '%C0%AE%C0%AE%2F',
  '%E0%A4%A', // truncated UTF-8: decodeURIComponent throws
  '%ZZ',
  '%',
  'a'.repeat(3000),
];
const WRONG_PARAM_VALUES = ['abc', '', '1.5', 'true', 'null', '[object Object]', '{}', '-', '0x1F', '1,2', 'not-a-uuid-0000'];
const NON_FINITE = ['Infinity', '-Infinity', '1e309', '-1e309', 'NaN'];

/** The boundary of the multipart bodies the generator writes. */
const BOUNDARY = 'fuzzboundary';

/** The Content-Type of a body in a media type: a multipart one names its boundary. */
export function contentTypeOf(mediaType: string): string {
  return isMultipartType(mediaType) && !/boundary=/i.test(mediaType) ? `${mediaType}; boundary=${BOUNDARY}` : mediaType;
}

const fieldText = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

/** A body value on the wire in its media type. */
export function encodeBody(mediaType: string, value: unknown): BodyPart[] {
  if (isJsonType(mediaType)) return encodeJson(value);
  if (isMultipartType(mediaType)) {
    const fields = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [['value', value] as const];
    const parts = fields.flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '_')}"\r\n\r\n${fieldText(x)}\r\n`));
    return [`${parts.join('')}--${BOUNDARY}--\r\n`];
  }
  if (isFormType(mediaType)) {
    if (!value || typeof value !== 'object') return [percentEncode(String(value))];
    return [
      Object.entries(value)
        .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as const) : [[k, v] as const]))
        .map(([k, v]) => `${percentEncode(k)}=${percentEncode(typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))}`)
        .join('&'),
    ];
  }
  return [typeof value === 'string' ? value : JSON.stringify(value)];
}

/** What a server sees after parsing, for the validity check (form fields are strings). */
function parsedBody(mediaType: string, parts: BodyPart[]): { ok: true; value: unknown } | { ok: false } {
  const text = bodyText(parts);
  if (text === undefined) return { ok: false };
  if (isJsonType(mediaType)) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: false };
    }
  }
  if (isFormType(mediaType)) return { ok: true, value: Object.fromEntries(new URLSearchParams(text)) };
  return { ok: true, value: text };
}

/** Replaces oversized stand-ins by small values of the same shape, to run ajv on what the schema would say. */
function standIn(value: unknown): unknown {
  if (value instanceof Repeat) return value.asString ? 'x'.repeat(Math.min(value.times, 5000)) : Array.from({ length: Math.min(value.times, 600) }, () => value.item);
  if (Array.isArray(value)) return value.map(standIn);
  const proto = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  // Plain objects (fast-check's records have no prototype); other instances are left alone.
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) Object.defineProperty(out, k, { value: standIn(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

const isParamInPath = (p: ParamModel) => p.in === 'path';
/** A header carries visible ASCII only: anything else cannot even be sent. */
const sendable = (value: string) => value.replace(/[^\x20-\x7e]/g, '?');
const jsonMedia = (m: OperationModel) => m.body?.media.find((x) => isJsonType(x.type));

export function httpRequestArbitrary(model: ServiceModel, liveIds?: LiveIds): fc.Arbitrary<FuzzRequest> {
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
      ? fc.integer({ min: 0, max: m.body.media.length - 1 }).chain((i) => {
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

  function assemble(
    m: OperationModel,
    parts: Parts,
    o: { case: string; expect?: FuzzRequest['expect']; credentials?: Record<string, string>; method?: string; body?: BodyPart[] | null; contentType?: string | null; unknownQuery?: string[] },
  ): FuzzRequest {
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
    list.length ? fc.constantFrom(...list).chain(build) : undefined;

  // ---------------------------------------------------------------- valid requests (G-1: an unknown `_` must not matter)
  const unknownNames = (m: OperationModel) =>
    fc.constantFrom('_', 'utm_source', 'callback', 'fields', 'debug', 'cacheBuster').filter((n) => !m.params.some((p) => p.name === n));
  const valid = forOps(ops, (m) =>
    fc
      .tuple(validParts(m), fc.option(fc.tuple(unknownNames(m), fc.stringMatching(/^[0-9]{1,13}$/)), { freq: 3 }), fc.nat(3))
      .map(([parts, extra, cors]) => {
        const withExtra: Parts = extra ? { ...parts, query: [...parts.query, extra] } : parts;
        const r = assemble(m, withExtra, { case: extra ? 'valid + unknown query parameter' : 'valid', unknownQuery: extra ? [extra[0]] : undefined });
        // Browsers send Origin: G-3 says every answer carries CORS headers.
        if (cors === 0) r.headers.origin = 'https://app.example.com';
        return r;
      }),
  );

  // ---------------------------------------------------------------- parameters
  // An empty path segment would address another path (`/projects/` is `/projects`), not a bad id.
  const paramCandidates = (p: ParamModel, values: string[]) => values.filter((v) => model.paramInvalid(p, v) && !(p.in === 'path' && v === ''));
  // A styled parameter (an object spread over the query, a label segment) has no one raw value to break.
  const paramsOf = (m: OperationModel) => m.params.filter((p) => !p.styled && (p.in === 'query' || p.in === 'path' || p.in === 'header'));
  const numeric = (p: ParamModel) => {
    const t = schemas.typesOf(schemas.resolve(p.schema));
    return !t.includes('string') && (t.includes('integer') || t.includes('number'));
  };

  /** One parameter of a valid request replaced by a raw value. */
  function withParam(parts: Parts, p: ParamModel, raw: string, encodedPath = false): Parts {
    if (p.in === 'path') return { ...parts, path: { ...parts.path, [p.name]: encodedPath ? { encoded: raw } : { raw } } };
    if (p.in === 'header') return { ...parts, headers: { ...parts.headers, [p.name]: raw.replace(/[^\x20-\x7e]/g, '?') } };
    return { ...parts, query: [...parts.query.filter(([k]) => k !== p.name), [p.name, raw]] };
  }

  function paramCase(label: string, pick: (p: ParamModel) => string[], expectOf: (p: ParamModel, raw: string) => FuzzRequest['expect']) {
    const eligible = where((m) => paramsOf(m).some((p) => pick(p).length > 0));
    return forOps(eligible, (m) => {
      const params = paramsOf(m).filter((p) => pick(p).length > 0);
      return fc
        .constantFrom(...params)
        .chain((p) => fc.tuple(fc.constant(p), fc.constantFrom(...pick(p)), validParts(m)))
        .map(([p, raw, parts]) => assemble(m, withParam(parts, p, raw), { case: label, expect: expectOf(p, raw) }));
    });
  }

  const reject = () => 'reject' as const;
  const wrongType = paramCase('query/path: wrong type', (p) => paramCandidates(p, WRONG_PARAM_VALUES), reject);
  const nonFinite = paramCase('query/path: non-finite number', (p) => (numeric(p) ? NON_FINITE : []), reject);
  const outOfRange = paramCase(
    'query/path: out of range',
    (p) => {
      const s = schemas.resolve(p.schema);
      const values: string[] = [];
      if (typeof s.minimum === 'number') values.push(String(s.minimum - 1), String(s.minimum - 1000));
      if (typeof s.maximum === 'number') values.push(String(s.maximum + 1), String(s.maximum * 1000 + 1));
      if (numeric(p)) values.push('9007199254740993', '-9007199254740993', '1e20', '-1e20');
      if (typeof s.maxLength === 'number') values.push('y'.repeat(s.maxLength + 1));
      return values.filter((v) => model.paramInvalid(p, v) || numeric(p));
    },
    (p, raw) => (model.paramInvalid(p, raw) ? 'reject' : 'any'),
  );
  const missingRequired = forOps(
    where((m) => m.params.some((p) => p.required && !p.styled && (p.in === 'query' || p.in === 'header'))),
    (m) => {
      const required = m.params.filter((p) => p.required && !p.styled && (p.in === 'query' || p.in === 'header'));
      return fc.tuple(fc.constantFrom(...required), validParts(m)).map(([p, parts]) =>
        assemble(
          m,
          { ...parts, query: parts.query.filter(([k]) => k !== p.name), headers: Object.fromEntries(Object.entries(parts.headers).filter(([k]) => k !== p.name)) },
          { case: 'query: missing required', expect: 'reject' },
        ),
      );
    },
  );
  const oversizedParam = forOps(
    where((m) => paramsOf(m).some((p) => p.in !== 'header')),
    (m) => {
      const params = paramsOf(m).filter((p) => p.in !== 'header');
      // Mostly a few KB (the application's limits); sometimes beyond node's 16 KB header limit.
      const size = fc.oneof({ arbitrary: fc.integer({ min: 2_000, max: 8_000 }), weight: 4 }, fc.integer({ min: 20_000, max: 40_000 }));
      return fc.tuple(fc.constantFrom(...params), size, validParts(m)).map(([p, n, parts]) =>
        assemble(m, withParam(parts, p, '7'.repeat(n)), { case: n > 16_000 ? 'query/path: URL over 16 KB' : 'query/path: oversized value', expect: model.paramInvalid(p, '7'.repeat(n)) ? 'reject' : 'any' }),
      );
    },
  );
  const repeatedParam = forOps(
    where((m) => m.params.some((p) => p.in === 'query' && !p.styled)),
    (m) => {
      const params = m.params.filter((p) => p.in === 'query' && !p.styled);
      return fc.tuple(fc.constantFrom(...params), validParts(m), paramValue(params[0]!)).map(([p, parts, v]) => {
        const current = parts.query.find(([k]) => k === p.name)?.[1] ?? v;
        return assemble(m, { ...parts, query: [...parts.query.filter(([k]) => k !== p.name), [p.name, current], [p.name, current]] }, { case: 'query: repeated parameter', expect: 'any' });
      });
    },
  );

  const unknownQuery = forOps(ops, (m) =>
    fc
      .tuple(validParts(m), fc.uniqueArray(fc.oneof(unknownNames(m), fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,10}$/).filter((n) => !m.params.some((p) => p.name === n))), { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[0-9a-z]{0,8}$/))
      .map(([parts, names, v]) => assemble(m, { ...parts, query: [...parts.query, ...names.map((n) => [n, v] as [string, string])] }, { case: 'query: unknown parameters', unknownQuery: names })),
  );
  const prototypeQuery = forOps(ops, (m) =>
    fc
      .tuple(validParts(m), fc.subarray([...PROTOTYPE_KEYS, '__proto__[polluted]', 'constructor[prototype][polluted]', 'a[__proto__][b]'], { minLength: 1, maxLength: 3 }), fc.constantFrom('1', 'x', 'true', ''))
      .map(([parts, names, v]) => assemble(m, { ...parts, query: [...parts.query, ...names.map((n) => [n, v] as [string, string])] }, { case: 'query: prototype keys as names', unknownQuery: names })),
  );

  // ---------------------------------------------------------------- bodies
  const withJsonBody = where((m) => Boolean(jsonMedia(m)?.schema));
  const mutantArbs = new Map<OperationModel, fc.Arbitrary<Mutant> | undefined>();
  const mutantOf = (m: OperationModel) => {
    if (!mutantArbs.has(m)) mutantArbs.set(m, schemas.invalid(jsonMedia(m)!.schema));
    return mutantArbs.get(m);
  };
  const bodyMutation = forOps(
    withJsonBody.filter((m) => mutantOf(m)),
    (m) =>
      fc.tuple(validParts(m), mutantOf(m)!).map(([parts, mutant]) => {
        const media = jsonMedia(m)!.type;
        const body = encodeBody(media, mutant.value);
        const parsed = parsedBody(media, body);
        const errors = model.bodyErrors(m, media, parsed.ok ? parsed.value : standIn(mutant.value));
        const expect = parsed.ok || bodyText(body) === undefined ? (errors.length > 0 || (mutant.certain && !parsed.ok) ? 'reject' : 'any') : 'reject';
        return assemble(m, parts, { case: `body: ${mutant.mutation}`, body, contentType: media, expect });
      }),
  );
  const oversizedBody = forOps(withJsonBody, (m) =>
    fc.tuple(validParts(m), fc.constantFrom(1_500_000, 3_000_000, 6_000_000)).map(([parts, size]) => {
      const media = jsonMedia(m)!.type;
      const value = parts.body?.mediaType === media ? parts.body.value : {};
      const base = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      // The padding goes into a string property of the schema when there is one (a bounded one makes
      // the body invalid); an unknown property is ignored by the tolerant reader (G-1), so then only
      // the size is on trial, and the contract states no size limit.
      const s = schemas.resolve(jsonMedia(m)!.schema);
      const strings = Object.entries<JsonNode>(s.properties ?? {}).filter(([, sub]) => schemas.typesOf(schemas.resolve(sub)).includes('string') && !schemas.resolve(sub).enum);
      const bounded = strings.find(([, sub]) => typeof schemas.resolve(sub).maxLength === 'number');
      const key = (bounded ?? strings[0])?.[0] ?? 'padding';
      const big = withOwnKey(base, key, new Repeat('x', size, true));
      return assemble(m, parts, { case: `body: ${size / 1e6} MB`, body: encodeBody(media, big), contentType: media, expect: bounded ? 'reject' : 'any' });
    }),
  );
  const deepBody = forOps(withJsonBody, (m) =>
    fc.tuple(validParts(m), fc.integer({ min: 5_000, max: 200_000 }), fc.constantFrom('[', '{"a":')).map(([parts, depth, open]) => {
      // Recursive parsers, validators and serializers run out of stack on deep nesting.
      const close = open === '[' ? ']' : '}';
      return assemble(m, parts, {
        case: 'body: deeply nested JSON',
        body: ['{"nested":', { repeat: open, times: depth }, '1', { repeat: close, times: depth }, '}'],
        contentType: jsonMedia(m)!.type,
        expect: 'any',
      });
    }),
  );
  const malformed = forOps(withJsonBody, (m) => {
    const media = jsonMedia(m)!.type;
    const broken = fc.oneof(
      fc.constantFrom('{', '{"a":', '{"a":1,}', "{'a':1}", '[1,2', 'nul', '{"a":1}{"b":2}', '{"a":"\\u12"}', '{"a":01}', '{"a":NaN}', '{"a":undefined}', '}{'),
      validParts(m).chain((parts) => {
        const text = JSON.stringify(parts.body?.value ?? { a: 1 });
        return fc.integer({ min: 1, max: Math.max(1, text.length - 1) }).map((cut) => text.slice(0, cut));
      }),
    );
    return fc.tuple(validParts(m), broken).map(([parts, text]) => assemble(m, parts, { case: 'body: malformed JSON', body: [text], contentType: media, expect: 'reject' }));
  });
  const oddJson = forOps(withJsonBody, (m) => {
    const media = jsonMedia(m)!.type;
    // Bodies that are JSON, or nearly: any answer may be right, none may be a crash.
    return fc
      .tuple(validParts(m), fc.constantFrom('', ' ', '\ufeff{}', 'null', '0', '"text"', '[]', 'true', '{}'))
      .map(([parts, text]) => assemble(m, parts, { case: 'body: empty or non-object JSON', body: [text], contentType: media, expect: 'any' }));
  });
  const contentTypes = [
    'text/plain',
    'text/plain; charset=utf-8',
    'application/xml',
    'application/octet-stream',
    'multipart/form-data; boundary=fuzzboundary',
    'application/json; charset=latin9',
    'application/json; charset=utf-16',
    'application/json; charset=iso-8859-1',
    'application/x-www-form-urlencoded',
    'application/vnd.api+json',
    'APPLICATION/JSON',
    'application/json; charset=UTF-8',
    'application/json;;;',
    'json',
    '',
  ];
  const withBody = where((m) => Boolean(m.body));
  const wrongContentType = forOps(withBody, (m) =>
    fc.tuple(validParts(m), fc.constantFrom(...contentTypes)).map(([parts, type]) => {
      const value = parts.body?.value ?? {};
      const body: BodyPart[] = isMultipartType(type)
        ? [`--fuzzboundary\r\nContent-Disposition: form-data; name="json"\r\n\r\n${JSON.stringify(value)}\r\n--fuzzboundary--\r\n`]
        : isFormType(type)
          ? encodeBody(type, value)
          : encodeJson(value);
      const essence = type.split(';')[0]!.trim().toLowerCase();
      const charset = /charset=([^;]+)/i.exec(type)?.[1]?.trim().toLowerCase();
      const declared = m.body!.media.some((x) => x.type === essence);
      // No Content-Type at all: a server may ignore an unlabelled body where the body is optional.
      const expect = (declared && (!charset || charset === 'utf-8')) || (type === '' && !m.body!.required) ? 'any' : 'reject';
      return assemble(m, parts, { case: 'body: wrong content type or charset', body, contentType: type === '' ? null : type, expect });
    }),
  );
  const manyFields = forOps(withBody, (m) =>
    fc.tuple(validParts(m), fc.integer({ min: 1001, max: 3000 })).map(([parts, n]) =>
      assemble(m, parts, {
        case: 'body: form with more than 1000 fields',
        body: [Array.from({ length: n }, (_, i) => `f${i}=${i}`).join('&')],
        contentType: 'application/x-www-form-urlencoded',
        expect: 'reject',
      }),
    ),
  );
  const prototypeBody = forOps(withJsonBody, (m) =>
    fc
      .tuple(
        validParts(m),
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.constantFrom<unknown>({}, { polluted: true }, { prototype: { polluted: true } }, 1, 'x', null, []),
        fc.boolean(),
      )
      .map(([parts, key, value, nested]) => {
        const media = jsonMedia(m)!.type;
        const base = parts.body?.value && typeof parts.body.value === 'object' && !Array.isArray(parts.body.value) ? (parts.body.value as Record<string, unknown>) : {};
        // Nested: inside the first property whose value is an object, else at the root.
        const inner = nested ? Object.entries(base).find(([, v]) => v && typeof v === 'object' && !Array.isArray(v)) : undefined;
        const body = inner ? withOwnKey(base, inner[0], withOwnKey(inner[1] as Record<string, unknown>, key, value)) : withOwnKey(base, key, value);
        return assemble(m, parts, { case: 'body: prototype keys as properties', body: encodeJson(body), contentType: media, expect: 'any' });
      }),
  );

  const encodings = forOps(withJsonBody, (m) =>
    fc.tuple(validParts(m), fc.constantFrom('gzip', 'deflate', 'br', 'x-unknown', 'identity', 'gzip, gzip')).map(([parts, encoding]) => {
      const media = jsonMedia(m)!.type;
      // The JSON text as is, labelled as compressed: it does not decompress.
      const r = assemble(m, parts, { case: 'body: content-encoding', body: encodeJson(parts.body?.value ?? {}), contentType: media, expect: encoding === 'identity' ? undefined : 'reject' });
      r.headers['content-encoding'] = encoding;
      return r;
    }),
  );
  const bodyWithoutSchema = forOps(where((m) => !m.body), (m) =>
    fc.tuple(validParts(m), fc.constantFrom('{"a":1}', '{', 'x'.repeat(2000))).map(([parts, text]) =>
      assemble(m, parts, { case: 'body: on an operation that takes none', body: [text], contentType: 'application/json', expect: 'any' }),
    ),
  );

  // ---------------------------------------------------------------- raw query strings and headers
  const rawQuery = forOps(ops, (m) =>
    fc
      .tuple(validParts(m), fc.constantFrom('%ZZ', '%', 'a=%E0%A4%A', '&&&', '=', '=x', 'a[]=1&a[]=2', 'a[b][c]=1', 'a=1;b=2', '%00=%00', '+=+', 'a=%C0%AE'))
      .map(([parts, raw]) => ({ ...assemble(m, parts, { case: 'query: malformed query string' }), rawQuery: raw })),
  );
  const manyQuery = forOps(ops, (m) =>
    fc.tuple(validParts(m), fc.integer({ min: 1001, max: 1500 })).map(([parts, n]) => ({
      ...assemble(m, parts, { case: 'query: more than 1000 parameters' }),
      rawQuery: Array.from({ length: n }, (_, i) => `q${i}=1`).join('&'),
      unknownQuery: ['q0'],
    })),
  );
  const oddHeaders = forOps(ops, (m) =>
    fc
      .tuple(
        validParts(m),
        fc.constantFrom<Record<string, string>>(
          { accept: 'text/html' },
          { accept: 'application/xml' },
          { 'x-http-method-override': 'DELETE' },
          { 'x-forwarded-for': '127.0.0.1, ::1' },
          { 'x-unknown-header': 'x'.repeat(8000) },
          { 'accept-charset': 'latin9' },
          { range: 'bytes=0-10' },
        ),
      )
      .map(([parts, extra]) => {
        // Unknown headers are ignored (G-1): the request stays as valid as it was.
        const r = assemble(m, parts, { case: 'header: unusual or unknown' });
        Object.assign(r.headers, extra);
        return r;
      }),
  );

  // Conditional requests: Express answers them from its automatic ETag (304, 412) unless told not to.
  const conditional = forOps(where((m) => m.operation.method === 'get'), (m) =>
    fc
      .tuple(
        validParts(m),
        fc.constantFrom<Record<string, string>>(
          { 'if-none-match': '*' },
          { 'if-none-match': 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"' },
          { 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' },
          { 'if-match': '"nope"' },
          { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
        ),
      )
      .map(([parts, extra]) => {
        const r = assemble(m, parts, { case: 'header: conditional request' });
        Object.assign(r.headers, extra);
        return r;
      }),
  );

  // ---------------------------------------------------------------- strings with NUL and unusual unicode
  const stringProps = (m: OperationModel) => {
    const s = jsonMedia(m)?.schema ? schemas.resolve(jsonMedia(m)!.schema) : {};
    return Object.entries<JsonNode>(s.properties ?? {})
      .filter(([, sub]) => schemas.typesOf(schemas.resolve(sub)).includes('string'))
      .map(([k]) => k);
  };
  const stringParams = (m: OperationModel) => m.params.filter((p) => !p.styled && (p.in === 'query' || p.in === 'path') && schemas.typesOf(schemas.resolve(p.schema)).includes('string'));
  const nasty = forOps(
    where((m) => stringProps(m).length > 0 || stringParams(m).length > 0),
    (m) => {
      const props = stringProps(m);
      const params = stringParams(m);
      const inBody = props.length
        ? fc.tuple(validParts(m), fc.constantFrom(...props), nastyString(), fc.boolean()).map(([parts, key, text, rawBytes]) => {
            const media = jsonMedia(m)!.type;
            const base = parts.body?.value && typeof parts.body.value === 'object' ? (parts.body.value as Record<string, unknown>) : {};
            if (!rawBytes) return assemble(m, parts, { case: 'string: NUL / unicode', body: encodeJson(withOwnKey(base, key, text)), contentType: media, expect: 'any' });
            // Invalid UTF-8 on the wire (a lone continuation byte, an overlong '/', 0xFF) inside a JSON string.
            const encoded = encodeJson(withOwnKey(base, key, '@@BYTES@@')).flatMap((p): BodyPart[] =>
              typeof p === 'string' && p.includes('@@BYTES@@') ? [p.slice(0, p.indexOf('@@BYTES@@')), { bytes: [0x80, 0xc0, 0xaf, 0xff, 0x00] }, p.slice(p.indexOf('@@BYTES@@') + 9)] : [p],
            );
            return assemble(m, parts, { case: 'string: invalid UTF-8 bytes', body: encoded, contentType: media, expect: 'any' });
          })
        : undefined;
      const inParams = params.length
        ? fc.tuple(validParts(m), fc.constantFrom(...params), nastyString()).map(([parts, p, text]) => assemble(m, withParam(parts, p, text), { case: 'string: NUL / unicode', expect: 'any' }))
        : undefined;
      return fc.oneof(...[inBody, inParams].filter((a): a is fc.Arbitrary<FuzzRequest> => a !== undefined));
    },
  );

  // ---------------------------------------------------------------- paths and methods
  const traversal = forOps(
    where((m) => m.params.some(isParamInPath)),
    (m) =>
      fc
        .tuple(validParts(m), fc.constantFrom(...m.params.filter(isParamInPath)), fc.constantFrom(...TRAVERSALS))
        .map(([parts, p, raw]) => assemble(m, withParam(parts, p, raw, true), { case: 'path: traversal / bad encoding', expect: 'any' })),
  );
  const firstOpOf = (p: PathModel) => ops.find((o) => o.operation.path === p.template)!;
  const examplePath = (p: PathModel) => validParts(firstOpOf(p)).map((parts) => buildPath(p.template, parts.path));
  const defaultCredentials = ops.find((o) => o.credentials.valid && Object.keys(o.credentials.valid).length > 0)?.credentials.valid ?? {};

  const methodsToTry = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'TRACE'];
  const unknownMethod = model.paths.some((p) => methodsToTry.some((x) => !p.methods.includes(x)))
    ? fc
        .constantFrom(...model.paths.filter((p) => methodsToTry.some((x) => !p.methods.includes(x))))
        .chain((p) => fc.tuple(fc.constant(p), fc.constantFrom(...methodsToTry.filter((x) => !p.methods.includes(x))), examplePath(p)))
        .map(([p, method, path]): FuzzRequest => {
          const withBody = method === 'PUT' || method === 'POST' || method === 'PATCH';
          return {
            case: 'method: not on this path',
            method,
            path,
            query: [],
            headers: { ...(firstOpOf(p).credentials.valid ?? defaultCredentials), ...(withBody ? { 'content-type': 'application/json' } : {}) },
            body: withBody ? ['{}'] : undefined,
            expect: 'reject',
            aim: `${method} ${p.template}`,
          };
        })
    : undefined;
  const head = forOps(where((m) => m.operation.method === 'get'), (m) =>
    validParts(m).map((parts) => ({ ...assemble(m, parts, { case: 'method: HEAD' }), method: 'HEAD' })),
  );
  const headNoGet = model.paths.some((p) => !p.methods.includes('GET'))
    ? fc.constantFrom(...model.paths.filter((p) => !p.methods.includes('GET'))).chain((p) =>
        examplePath(p).map(
          (path): FuzzRequest => ({ case: 'method: HEAD where there is no GET', method: 'HEAD', path, query: [], headers: { ...defaultCredentials }, expect: 'reject', aim: `HEAD ${p.template}` }),
        ),
      )
    : undefined;
  const options = fc
    .constantFrom(...model.paths)
    .chain((p) => fc.tuple(fc.constant(p), examplePath(p), fc.boolean()))
    .map(
      ([p, path, preflight]): FuzzRequest => ({
        case: preflight ? 'method: OPTIONS (CORS preflight)' : 'method: OPTIONS',
        method: 'OPTIONS',
        path,
        query: [],
        // Preflights never carry credentials: the browser sends them only on the real request.
        headers: preflight ? { origin: 'https://app.example.com', 'access-control-request-method': p.methods[0] ?? 'GET', 'access-control-request-headers': 'authorization, content-type' } : {},
        expect: 'any',
        aim: `OPTIONS ${p.template}`,
      }),
    );
  const segment = fc.oneof(
    fc.stringMatching(/^[a-z][a-z0-9_-]{0,14}$/),
    fc.constantFrom('admin', '.env', '%2e%2e', '%2e%2e%2fetc%2fpasswd', 'index.html', 'v2', 'api', 'graphql', 'wp-login.php', '%00', '..%2F..', 'docs', 'swagger.json', '__proto__', 'constructor'),
  );
  const unknownPath = fc
    .oneof(
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => `/${segments.join('/')}`),
      fc.tuple(fc.constantFrom(...model.paths), segment).chain(([p, extra]) => examplePath(p).map((path) => `${path}/${extra}`)),
      // A known path spelled another way: upper case, doubled or dot segments, an encoded slash.
      fc
        .tuple(fc.constantFrom(...model.paths), fc.constantFrom('upper', 'double', 'dot', 'slash'))
        .chain(([p, how]) =>
          examplePath(p).map((path) =>
            how === 'upper' ? path.toUpperCase() : how === 'double' ? `/${path}` : how === 'dot' ? `/.${path}` : path.replace(/^\/([^/]+)\//, '/$1%2F'),
          ),
        ),
      fc.constantFrom('', '/'),
    )
    .filter((path) => !model.match(path))
    .chain((path) =>
      fc.constantFrom('GET', 'POST', 'DELETE', 'HEAD', 'OPTIONS').map((method): FuzzRequest => ({ case: 'path: unknown', method, path, query: [], headers: { ...defaultCredentials }, expect: 'reject', aim: 'no operation' })),
    );

  // ---------------------------------------------------------------- credentials
  const badCredentials = forOps(
    where((m) => m.credentials.variants.length > 0),
    (m) =>
      fc.tuple(validParts(m), fc.constantFrom(...m.credentials.variants)).map(([parts, variant]) =>
        assemble(m, parts, { case: `auth: ${variant.label.replace(/:.*$/, '')}`, credentials: variant.headers, expect: variant.expect === 'reject' ? 'reject' : 'any' }),
      ),
  );

  const bad: Array<[fc.Arbitrary<FuzzRequest> | undefined, number]> = [
    [wrongType, 4],
    [nonFinite, 4],
    [outOfRange, 3],
    [missingRequired, 2],
    [oversizedParam, 2],
    [repeatedParam, 1],
    [unknownQuery, 3],
    [prototypeQuery, 4],
    [bodyMutation, 9],
    [oversizedBody, 1],
    [deepBody, 1],
    [malformed, 4],
    [oddJson, 2],
    [wrongContentType, 5],
    [manyFields, 2],
    [prototypeBody, 4],
    [encodings, 2],
    [bodyWithoutSchema, 1],
    [rawQuery, 2],
    [manyQuery, 1],
    [oddHeaders, 2],
    [conditional, 2],
    [nasty, 4],
    [traversal, 3],
    [unknownMethod, 3],
    [head, 2],
    [headNoGet, 1],
    [options, 2],
    [unknownPath, 3],
    [badCredentials, 7],
  ];
  const present = bad.filter((b): b is [fc.Arbitrary<FuzzRequest>, number] => b[0] !== undefined);
  const badWeight = present.reduce((n, [, w]) => n + w, 0);
  // Roughly half valid, half bad; `valid` first so shrinking a failure heads for a valid request.
  return fc.oneof(
    { arbitrary: valid!, weight: badWeight },
    ...present.map(([arbitrary, weight]) => ({ arbitrary, weight })),
  );
}

