/**
 * Between the front's validating proxy and Prism: routes `/<slug>/…` to the service's Prism instance
 * (in this process, mock/prism.ts), and answers what Prism found wrong with the request (where Prism
 * answers some canned 400 or 422 example) in the service's error body instead, naming each violation. What Prism says of its own answer
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
import { prismRefusal, type PrismProblem } from './prism-problems.js';
import { writeError } from '../server-stubs/lib/results.js';
import type { ErrorResponse } from '../server-stubs/lib/errors.js';
import { declaredHeaderValues } from './headers.js';
import type { PrismService, Violation } from './prism.js';
import { isEventStream, streamAccept, writeFrames } from './streams.js';

export interface GatewayTarget {
  /** the service's Prism, in this process */
  prism: PrismService;
  contract: Contract;
  /** the service's error body, status already folded into a declared one */
  errors: ErrorMapper;
}

export interface PrismGateway {
  /** `http://127.0.0.1:<port>`; a service's upstream is this plus `/<slug>` */
  url: string;
  /** by slug; replaced entries take effect on the next request (a reloaded service) */
  targets: Map<string, GatewayTarget>;
  close(): Promise<void>;
}

export async function startPrismGateway(targets: Map<string, GatewayTarget>, log: (line: string) => void): Promise<PrismGateway> {
  // The body is read first: whether a stream is asked for can lie in it (mock/streams.ts).
  const server = http.createServer((req, res) => void req.toArray().then((chunks: Buffer[]) => relay(req, res, Buffer.concat(chunks)), () => res.destroy()));
  const relay = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const [, slug = '', ...rest] = (req.url ?? '/').split('/');
    const target = targets.get(slug);
    if (!target) return answerJson(res, 502, { error: `No Prism for ${slug}` });
    const method = req.method ?? 'GET';
    const forwarded = `/${rest.join('/')}`;
    const requestPath = forwarded.split('?')[0]!;
    const matched = target.contract.match(method, requestPath);
    const operation = matched.kind === 'operation' ? matched.operation : undefined;
    const accept = operation && streamAccept(target.contract.document, operation, body);
    const answer = await target.prism.answer({ method, url: forwarded, headers: accept ? { ...req.headers, accept } : req.headers, body });
    if (answer.kind === 'problem') return prismProblem(answer);
    const requestViolations = answer.violations.filter((v) => v.location[0] === 'request' && v.severity === 'Error');
    if (requestViolations.length > 0) return refuseInvalid(requestViolations.map((v) => ({ path: v.location.slice(1).join('.'), message: v.message })));
    const own = answer.violations.filter((v) => v.location[0] !== 'request');
    if (own.length > 0) log(`[mock ${slug}] ${method} ${requestPath}: Prism flags its own answer: ${own.map((v) => v.message).join('; ')}`);
    const headers: http.OutgoingHttpHeaders = { ...answer.headers };
    if (operation) Object.assign(headers, declaredHeaderValues(target.contract.document, operation, answer.status));
    if (isEventStream(answer.headers['content-type'])) return writeFrames(answer.status, answer.body ?? '', res, headers);
    if (answer.body !== undefined) headers['content-length'] = Buffer.byteLength(answer.body);
    res.writeHead(answer.status, headers);
    res.end(answer.body);

    function refuseInvalid(issues: Array<{ path: string; message: string }>) {
      const message = `The request breaks the contract: ${issues.map((i) => i.message).join('; ')}`;
      answerMapped(res, target!.errors(failureFor(operation, { kind: 'validation', status: 400, message, issues })));
    }

    /**
     * Where an operation declares no 400 or 422, Prism lists a request's violations in its own
     * 422 body (`validation`) rather than among its findings: answered, like those, as the service's
     * error naming them. Prism's other refusals are told as the stubs tell them (prism-problems.ts).
     */
    function prismProblem({ status, problem }: { status: number; problem: PrismProblem }) {
      if (problem.type.endsWith('#UNPROCESSABLE_ENTITY') && Array.isArray(problem.validation)) {
        return refuseInvalid((problem.validation as Partial<Violation>[]).map((v) => ({ path: (v.location ?? []).join('.'), message: v.message ?? String(v.code ?? 'is invalid') })));
      }
      answerMapped(res, target!.errors(failureFor(operation, prismRefusal(operation, method, `${target!.contract.basePath}${requestPath}`, status, problem))));
    }
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
