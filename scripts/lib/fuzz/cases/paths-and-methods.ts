/** Paths and methods: traversal in path parameters, methods a path does not have, HEAD, OPTIONS and preflights, unknown paths. */
import fc from 'fast-check';
import type { PathModel } from '../contract-model.js';
import { chainOnce } from '../chain-once.js';
import { TRAVERSALS } from './hostile-values.js';
import { isParamInPath, type RequestKit } from '../request-kit.js';
import type { FuzzRequest } from '../wire.js';

/** A segment for an unknown path. Built once: a new `stringMatching` is costly to prepare, and every target's generator asks for it. */
const segment = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9_-]{0,14}$/),
  fc.constantFrom('admin', '.env', '%2e%2e', '%2e%2e%2fetc%2fpasswd', 'index.html', 'v2', 'api', 'graphql', 'wp-login.php', '%00', '..%2F..', 'docs', 'swagger.json', '__proto__', 'constructor'),
);

export function pathsAndMethodsRequests(kit: RequestKit) {
  const { model, ops, validParts, buildPath, assemble, withParam, where, forOps } = kit;
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
    ? chainOnce(fc.constantFrom(...model.paths.filter((p) => methodsToTry.some((x) => !p.methods.includes(x)))), (p) =>
        fc.tuple(fc.constant(p), fc.constantFrom(...methodsToTry.filter((x) => !p.methods.includes(x))), examplePath(p)),
      ).map(([p, method, path]): FuzzRequest => {
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
    ? chainOnce(fc.constantFrom(...model.paths.filter((p) => !p.methods.includes('GET'))), (p) =>
        examplePath(p).map(
          (path): FuzzRequest => ({ case: 'method: HEAD where there is no GET', method: 'HEAD', path, query: [], headers: { ...defaultCredentials }, expect: 'reject', aim: `HEAD ${p.template}` }),
        ),
      )
    : undefined;
  const options = chainOnce(fc.constantFrom(...model.paths), (p) => fc.tuple(fc.constant(p), examplePath(p), fc.boolean())).map(
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
  return { traversal, unknownMethod, head, headNoGet, options, unknownPath };
}
