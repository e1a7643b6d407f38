/** Strings with NUL, unusual unicode and invalid UTF-8, in bodies and parameters. */
import fc from 'fast-check';
import { encodeJson, nastyString, withOwnKey } from '../arbitraries.js';
import type { OperationModel } from '../contract-model.js';
import { jsonMedia, type RequestKit } from '../request-kit.js';
import type { BodyPart, FuzzRequest } from '../wire.js';
import type { Schema } from '../../../../server-stubs/lib/openapi/json-schema.js';

export function stringRequests(kit: RequestKit) {
  const { schemas, validParts, assemble, withParam, where, forOps } = kit;
  const stringProps = (m: OperationModel) => {
    const s = jsonMedia(m)?.schema ? schemas.resolve(jsonMedia(m)!.schema) : {};
    return Object.entries<Schema>(s.properties ?? {})
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
  return { nasty };
}
