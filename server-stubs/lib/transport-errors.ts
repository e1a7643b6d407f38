/**
 * Answers the platform server gives outside any service's router, in the error body of the service
 * the request was meant for: requests Node refuses before Express sees them (broken HTTP, an unknown
 * method, headers over 16 KB), and a service that could not start (503). A client of seo gets seo's
 * `{error, code}` from them as from every other answer; a path no service has gets `{error, code}`.
 */
import http from 'node:http';
import path from 'node:path';
import { loadContract, type Contract } from './contract.js';
import { failedOperation, type ErrorMapper, type ErrorResponse, type FailedOperation, type Failure } from './errors.js';
import { isUnder } from './http-server.js';

/** The services a request may be meant for: where each is mounted, and its error body if it has one. */
export interface ErrorFamilies {
  /** the error body of the service the target falls under, and the operation its path names, if any */
  find(target: string): { errors: ErrorMapper; near: FailedOperation | undefined } | undefined;
}

/** A service as the families know it: its contract's routes when at hand, else found by its slug. */
export interface FamilyMember {
  basePath: string;
  errors?: ErrorMapper;
  slug?: string;
  contract?: Pick<Contract, 'match'>;
}

/**
 * A service whose error body depends on the operation (coder answers its OpenAI routes in OpenAI's
 * body) gets, with a request Node refused, the operation the request's path names: the method may be
 * the broken part, so the path alone decides (any operation of the path, else the one it is under).
 */
export function errorFamilies(services: () => ReadonlyArray<FamilyMember>): ErrorFamilies {
  return {
    find: (target) => {
      const member = services().find((s) => isUnder(target, s.basePath));
      if (!member?.errors) return undefined;
      const routes = member.contract ?? contractBySlug(member.slug);
      const requestPath = target.split('?')[0]!.slice(member.basePath === '/' ? 0 : member.basePath.length) || '/';
      const match = routes?.match('GET', requestPath);
      const operation = match && (match.kind === 'operation' ? match.operation : match.near);
      return { errors: member.errors, near: operation && failedOperation(operation) };
    },
  };
}

/** The bundled contract of a service found in generated/, or none (a service of another folder, one not built). */
function contractBySlug(slug: string | undefined): Contract | undefined {
  if (!slug) return undefined;
  try {
    return loadContract(slug);
  } catch {
    return undefined;
  }
}

/** The body of a failure where no service's error body applies: the platform's own `{error, code}`. */
export function platformError(failure: Pick<Failure, 'kind' | 'status' | 'message'>): ErrorResponse {
  const code = failure.status === 503 ? 'SERVICE_UNAVAILABLE' : failure.kind.toUpperCase();
  return { status: failure.status, body: { error: failure.message, code } };
}

/** A failure in the error body of the service its target falls under, else the platform's. */
export function answerIn(families: ErrorFamilies, target: string, failure: Failure): ErrorResponse {
  const family = families.find(target);
  if (!family) return platformError(failure);
  return family.errors(failure.operation || failure.near ? failure : { ...failure, near: family.near });
}

/**
 * Requests Node refuses before any app sees them (headers or URL over Node's 16 KB, broken HTTP, an
 * unknown method) still get a JSON answer, not Node's bare 431/400 or a reset: in the error body of
 * the service their target names where `families` knows it (the stubs, the mock), else the platform's.
 */
export function answerClientErrors(server: http.Server, families?: ErrorFamilies): http.Server {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    if (!socket.writable) return void socket.destroy();
    const target = requestLine(error.rawPacket)?.target ?? '/';
    const failure = transportFailure(error);
    socket.end(rawAnswer(families ? answerIn(families, target, failure) : platformError(failure)));
  });
  return server;
}

/** What Node's HTTP parser refused, as a failure a client can act on. */
export function transportFailure(error: NodeJS.ErrnoException & { rawPacket?: Buffer; reason?: string }): Failure {
  const line = requestLine(error.rawPacket);
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { kind: 'payload_too_large', status: 431, message: 'Request headers or URL too large (16 KB at most)' };
    case 'HPE_INVALID_METHOD':
      return { kind: 'validation', status: 400, message: `${line?.method ? `"${line.method.slice(0, 40)}" is not` : 'The request does not start with'} an HTTP method this server knows` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { kind: 'validation', status: 408, message: 'The request did not arrive in time' };
    default:
      return { kind: 'validation', status: 400, message: `Malformed HTTP request${error.reason ? `: ${error.reason}` : ''}` };
  }
}

/** The method and target of a request Node could not parse, read off its first bytes. */
export function requestLine(raw: Buffer | undefined): { method: string; target: string } | undefined {
  const first = raw?.subarray(0, 16 * 1024).toString('latin1').split('\r\n', 1)[0];
  const m = first ? /^(\S+) (\S+)/.exec(first) : null;
  return m ? { method: m[1]!, target: m[2]! } : undefined;
}

/** An error answer as raw HTTP/1.1, for a socket that has no response object; the connection closes after it. */
export function rawAnswer(mapped: ErrorResponse): string {
  const text = mapped.text !== undefined ? Buffer.from(mapped.text).toString('utf8') : mapped.body === undefined ? '' : JSON.stringify(mapped.body);
  const declared = mapped.contentType ?? (mapped.text !== undefined ? 'text/plain' : 'application/json');
  const type = /;\s*charset=/i.test(declared) ? declared : `${declared}; charset=utf-8`;
  const headers = { ...(text ? { 'Content-Type': type } : {}), ...(mapped.headers ?? {}), 'Content-Length': String(Buffer.byteLength(text)), Connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${mapped.status} ${http.STATUS_CODES[mapped.status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${text}`;
}

/**
 * A message without this machine's absolute paths: names under `root` relative to it, any other
 * absolute path as its last part. A load error quotes files; a client has no use for where they lie.
 */
export function withoutAbsolutePaths(text: string, root: string): string {
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  return text.split(prefix).join('').replace(/(^|[\s('"`=:])(?:file:\/\/)?\/(?:[^\s/'"`():]+\/)+([^\s/'"`():]+)/g, '$1$2');
}
