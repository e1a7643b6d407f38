/** Malformed query strings, too many parameters, unusual and conditional headers. */
import fc from 'fast-check';
import type { RequestKit } from '../request-kit.js';

export function rawQueryAndHeadersRequests(kit: RequestKit) {
  const { ops, validParts, assemble, where, forOps } = kit;
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
  return { rawQuery, manyQuery, oddHeaders, conditional };
}
