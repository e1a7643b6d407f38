/** Bad bodies: schema mutations, oversized, deep, malformed or odd JSON, wrong media types and charsets, too many form fields, prototype keys, encodings, a body where none is taken. */
import fc from 'fast-check';
import { encodeJson, Repeat, withOwnKey, type Mutant } from '../arbitraries.js';
import { encodeBody, parsedBody, standIn } from '../body-encoding.js';
import type { OperationModel } from '../contract-model.js';
import { PROTOTYPE_KEYS } from './hostile-values.js';
import { jsonMedia, type RequestKit } from '../request-kit.js';
import { bodyText, type BodyPart } from '../wire.js';
import type { Schema } from '../../../../server-stubs/lib/openapi/json-schema.js';
import { isFormType, isMultipartType } from '../../../../server-stubs/lib/media-types.js';

export function bodyRequests(kit: RequestKit) {
  const { model, schemas, validParts, assemble, where, forOps } = kit;
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
      const strings = Object.entries<Schema>(s.properties ?? {}).filter(([, sub]) => schemas.typesOf(schemas.resolve(sub)).includes('string') && !schemas.resolve(sub).enum);
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
  return { bodyMutation, oversizedBody, deepBody, malformed, oddJson, wrongContentType, manyFields, prototypeBody, encodings, bodyWithoutSchema };
}
