/** Bad parameters: wrong types, non-finite and out-of-range numbers, missing, oversized and repeated values, unknown and prototype-key names. */
import fc from 'fast-check';
import type { OperationModel, ParamModel } from '../contract-model.js';
import { NON_FINITE, PROTOTYPE_KEYS, WRONG_PARAM_VALUES } from './hostile-values.js';
import { chainOnce } from '../chain-once.js';
import type { RequestKit } from '../request-kit.js';
import type { FuzzRequest } from '../wire.js';

/** Built once: a request family's generators are built again for every request (`chain`), and a new `stringMatching` is costly to prepare. */
const unknownName = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,10}$/);
const unknownValue = fc.stringMatching(/^[0-9a-z]{0,8}$/);

export function parameterRequests(kit: RequestKit) {
  const { model, schemas, ops, paramValue, validParts, assemble, withParam, where, forOps, unknownNames } = kit;
  // An empty path segment would address another path (`/projects/` is `/projects`), not a bad id.
  const paramCandidates = (p: ParamModel, values: string[]) => values.filter((v) => model.paramInvalid(p, v) && !(p.in === 'path' && v === ''));
  // A styled parameter (an object spread over the query, a label segment) has no one raw value to break.
  const paramsOf = (m: OperationModel) => m.params.filter((p) => !p.styled && (p.in === 'query' || p.in === 'path' || p.in === 'header'));
  const numeric = (p: ParamModel) => {
    const t = schemas.typesOf(schemas.resolve(p.schema));
    return !t.includes('string') && (t.includes('integer') || t.includes('number'));
  };


  function paramCase(label: string, pick: (p: ParamModel) => string[], expectOf: (p: ParamModel, raw: string) => FuzzRequest['expect']) {
    const eligible = where((m) => paramsOf(m).some((p) => pick(p).length > 0));
    return forOps(eligible, (m) => {
      const params = paramsOf(m).filter((p) => pick(p).length > 0);
      return chainOnce(fc.constantFrom(...params), (p) => fc.tuple(fc.constant(p), fc.constantFrom(...pick(p)), validParts(m))).map(([p, raw, parts]) => assemble(m, withParam(parts, p, raw), { case: label, expect: expectOf(p, raw) }));
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
      .tuple(validParts(m), fc.uniqueArray(fc.oneof(unknownNames(m), unknownName.filter((n) => !m.params.some((p) => p.name === n))), { minLength: 1, maxLength: 3 }), unknownValue)
      .map(([parts, names, v]) => assemble(m, { ...parts, query: [...parts.query, ...names.map((n) => [n, v] as [string, string])] }, { case: 'query: unknown parameters', unknownQuery: names })),
  );
  const prototypeQuery = forOps(ops, (m) =>
    fc
      .tuple(validParts(m), fc.subarray([...PROTOTYPE_KEYS, '__proto__[polluted]', 'constructor[prototype][polluted]', 'a[__proto__][b]'], { minLength: 1, maxLength: 3 }), fc.constantFrom('1', 'x', 'true', ''))
      .map(([parts, names, v]) => assemble(m, { ...parts, query: [...parts.query, ...names.map((n) => [n, v] as [string, string])] }, { case: 'query: prototype keys as names', unknownQuery: names })),
  );
  return { wrongType, nonFinite, outOfRange, missingRequired, oversizedParam, repeatedParam, unknownQuery, prototypeQuery };
}
