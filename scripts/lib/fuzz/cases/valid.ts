/** Valid requests: every operation with values from its contract, sometimes with an unknown query parameter (G-1: it must not matter) or a browser's Origin. */
import fc from 'fast-check';
import type { Parts, RequestKit } from '../request-kit.js';

/** Built once: a request family's generators are built again for every request (`chain`), and a new `stringMatching` is costly to prepare. */
const unknownValue = fc.stringMatching(/^[0-9]{1,13}$/);

export function validRequests(kit: RequestKit) {
  const { ops, validParts, assemble, forOps, unknownNames } = kit;
  const valid = forOps(ops, (m) =>
    fc
      .tuple(validParts(m), fc.option(fc.tuple(unknownNames(m), unknownValue), { freq: 3 }), fc.nat(3))
      .map(([parts, extra, cors]) => {
        const withExtra: Parts = extra ? { ...parts, query: [...parts.query, extra] } : parts;
        const r = assemble(m, withExtra, { case: extra ? 'valid + unknown query parameter' : 'valid', unknownQuery: extra ? [extra[0]] : undefined });
        // Browsers send Origin: G-3 says every answer carries CORS headers.
        if (cors === 0) r.headers.origin = 'https://app.example.com';
        return r;
      }),
  );
  return { valid };
}
