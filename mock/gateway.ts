/**
 * Between the front's validating proxy and the Prism processes: routes `/<slug>/…` to the service's
 * Prism, and keeps Prism's `sl-violations` from reaching clients. Prism lists there what it found
 * wrong with the request (and answers some canned 400 or 422 example); the gateway answers that
 * instead in the service's error body, naming each violation. What Prism says of its own answer
 * (a stream it cannot describe, say) is the mock's doing, not the client's: logged, never sent.
 * It also mends what Prism answers where the stubs answer otherwise: the stream or JSON chosen by the
 * request's body, a stream written frame by frame (streams.ts), declared headers with real values
 * (headers.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Contract } from '../server-stubs/lib/contract.js';
import type { ErrorMapper } from '../server-stubs/lib/errors.js';
import { failureFor } from './errors.js';
import { isPrismProblem, prismRefusal } from './prism-problems.js';
import { writeError } from '../server-stubs/lib/results.js';
import type { ErrorResponse } from '../server-stubs/lib/errors.js';
import { declaredHeaderValues } from './headers.js';
import { isEventStream, streamAccept, writeFrames } from './streams.js';

export interface GatewayTarget {
  /** Prism's port on 127.0.0.1 */
  port: number;
  contract: Contract;
  /** the service's error body, status already folded into a declared one */
  errors: ErrorMapper;
}

export interface PrismGateway {
  /** `http://127.0.0.1:<port>`; a service's upstream is this plus `/<slug>` */
  url: string;
  /** by slug; replaced entries take effect on the next request (a restarted Prism) */
  targets: Map<string, GatewayTarget>;
  close(): Promise<void>;
}

interface Violation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

const VIOLATIONS = 'sl-violations';

export async function startPrismGateway(targets: Map<string, GatewayTarget>, log: (line: string) => void): Promise<PrismGateway> {
  // The body is read first: whether a stream is asked for can lie in it (mock/streams.ts).
  const server = http.createServer((req, res) => void req.toArray().then((chunks: Buffer[]) => relay(req, res, Buffer.concat(chunks)), () => res.destroy()));
  const relay = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const [, slug = '', ...rest] = (req.url ?? '/').split('/');
    const target = targets.get(slug);
    if (!target) return answerJson(res, 502, { error: `No Prism for ${slug}` });
    const forwarded = `/${rest.join('/')}`;
    const matched = target.contract.match(req.method ?? 'GET', forwarded.split('?')[0]!);
    const matchedOperation = matched.kind === 'operation' ? matched.operation : undefined;
    const accept = matchedOperation && streamAccept(target.contract.document, matchedOperation, body);
    const requestHeaders = accept ? { ...req.headers, accept } : req.headers;
    const upstream = http.request({ host: '127.0.0.1', port: target.port, method: req.method, path: forwarded, headers: requestHeaders }, (answer) => {
      const violations = parseViolations(answer.headers[VIOLATIONS]);
      const requestViolations = violations.filter((v) => v.location?.[0] === 'request' && v.severity === 'Error');
      const requestPath = forwarded.split('?')[0]!;
      if (requestViolations.length > 0) {
        answer.resume();
        const match = target.contract.match(req.method ?? 'GET', requestPath);
        const operation = match.kind === 'operation' ? match.operation : undefined;
        const issues = requestViolations.map((v) => ({ path: (v.location ?? []).slice(1).join('.'), message: v.message ?? String(v.code ?? 'is invalid') }));
        const mapped = target.errors(
          failureFor(operation, { kind: 'validation', status: 400, message: `The request breaks the contract: ${issues.map((i) => i.message).join('; ')}`, issues }),
        );
        return answerMapped(res, mapped);
      }
      if (violations.length > 0) log(`[mock ${slug}] ${req.method} ${requestPath}: Prism flags its own answer: ${violations.map((v) => v.message).join('; ')}`);
      if (String(answer.headers['content-type'] ?? '').startsWith('application/problem+json')) return prismProblem(answer);
      const headers = { ...answer.headers };
      delete headers[VIOLATIONS];
      if (matchedOperation) Object.assign(headers, declaredHeaderValues(target.contract.document, matchedOperation, answer.statusCode ?? 502));
      if (isEventStream(answer.headers['content-type'])) return void writeFrames(answer, res, headers).catch(() => res.destroy());
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);

      /**
       * Where an operation declares no 400 or 422, Prism lists a request's violations in its own
       * 422 body (`validation`) rather than in the header: answered, like those, as the service's
       * error naming them. Prism's other refusals are told as the stubs tell them (prism-problems.ts);
       * a problem body of the contract's own passes as it came.
       */
      function prismProblem(problem: http.IncomingMessage) {
        const chunks: Buffer[] = [];
        problem.on('data', (chunk: Buffer) => chunks.push(chunk));
        problem.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: { type?: unknown; validation?: Violation[] } = {};
          try {
            body = JSON.parse(text);
          } catch {
            // not Prism's problem body: passed on below
          }
          const invalid = typeof body.type === 'string' && body.type.endsWith('#UNPROCESSABLE_ENTITY') && Array.isArray(body.validation);
          const match = target!.contract.match(req.method ?? 'GET', requestPath);
          const operation = match.kind === 'operation' ? match.operation : undefined;
          if (!invalid && isPrismProblem(body)) {
            const refusal = prismRefusal(operation, req.method ?? 'GET', `${target!.contract.basePath}${requestPath}`, problem.statusCode ?? 500, body);
            return answerMapped(res, target!.errors(failureFor(operation, refusal)));
          }
          if (!invalid) {
            const passed = { ...problem.headers };
            delete passed[VIOLATIONS];
            delete passed['content-length'];
            res.writeHead(problem.statusCode ?? 502, passed);
            return void res.end(text);
          }
          const issues = body.validation!.map((v) => ({ path: (v.location ?? []).join('.'), message: v.message ?? String(v.code ?? 'is invalid') }));
          const mapped = target!.errors(failureFor(operation, { kind: 'validation', status: 400, message: `The request breaks the contract: ${issues.map((i) => i.message).join('; ')}`, issues }));
          answerMapped(res, mapped);
        });
      }
    });
    upstream.on('error', (error) => answerJson(res, 502, { error: `Prism for ${slug} is not answering: ${error.message}` }));
    upstream.end(body);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseViolations(header: string | string[] | undefined): Violation[] {
  if (header === undefined) return [];
  try {
    const parsed = JSON.parse([header].flat().join(''));
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [{ location: ['response'], message: String(header) }];
  }
}

function answerJson(res: http.ServerResponse, status: number, body: unknown) {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A request Prism refused, in the service's error as the stubs write theirs. */
function answerMapped(res: http.ServerResponse, mapped: ErrorResponse) {
  if (res.headersSent) return void res.end();
  res.statusCode = mapped.status;
  for (const [name, value] of Object.entries(mapped.headers ?? {})) res.setHeader(name, value);
  writeError(res, mapped);
}
