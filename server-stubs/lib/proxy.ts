import type { ErrorObject } from 'ajv';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { deref } from './openapi/document.js';
import { badInputStatus, declares, loadContract, responseKeyFor, type Contract, type OperationInfo } from './contract.js';
import { failedOperation, type ErrorMapper, type Failure, type FailureKind } from './errors.js';
import { numericParameterChecker, overflowingNumber, pruneBody } from './request-body.js';
import { hopByHop, writeError } from './results.js';
import { createFrameReader, formatComment, formatFrame, formatRetry, jsonOrText } from './sse.js';
import { declaresMediaType, essence, isJsonType } from './media-types.js';
import { failureFromThrown } from './failures.js';
import { countAnswers, CoverageBook, coverageEndpoint, type CoverageCounter } from './coverage.js';

export interface ProxyOptions {
  slug: string;
  /** the real backend, with the service's base path: `http://localhost:8080/seo` */
  upstream: string;
  /** the service's error body, for the answers the proxy gives itself */
  errors: ErrorMapper;
  /** a violation becomes the answer: 400 for the request, 502 for the response, in the service's body */
  strict?: boolean;
  log?: (line: string) => void;
  /** the bundle to check against; generated/<slug>/openapi.json unless given */
  contract?: Contract;
  /**
   * Forward a JSON body as the stubs read it, without the fields its schema does not know (the
   * tolerant reader, DECISIONS G-1): for an upstream that would refuse them (the mock's Prism).
   * Otherwise the body goes on byte for byte.
   */
  forwardTolerated?: boolean;
  /** where each exchange is counted by operationId and the status the client got (`GET /_stub/coverage` on `npm run proxy`'s port) */
  coverage?: CoverageCounter;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** the operation a proxied request addressed, for its count once answered */
    proxiedOperation?: OperationInfo;
  }
}

/** The header that lists what a proxied exchange broke, as Prism's `sl-violations` does. */
export const VIOLATIONS_HEADER = 'X-Contract-Violations';


/**
 * A validating proxy in front of a real implementation of a contract (`npm run proxy`): every
 * request is forwarded as it came; the request and the answer are checked against the contract;
 * what they break is listed in `X-Contract-Violations` and logged. An event stream is passed frame
 * by frame and each frame checked as it passes (its violations can only be logged: the headers
 * have gone). With `strict`, a violation is the answer instead.
 */
export function createValidatingProxy(options: ProxyOptions): Router {
  const contract = options.contract ?? loadContract(options.slug);
  const numericParameters = numericParameterChecker(contract);
  const log = options.log ?? ((line: string) => console.warn(line));
  const upstream = options.upstream.replace(/\/$/, '');
  const router = express.Router();
  if (options.coverage) router.use(countAnswers(options.coverage, (_req, res) => (res as Response).locals.proxiedOperation));
  router.use(express.raw({ type: () => true, limit: '5mb' }));
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const match = contract.match(req.method, req.path);
      const operation = match.kind === 'operation' ? match.operation : undefined;
      res.locals.proxiedOperation = operation;
      const read = operation ? requestProblems(contract, operation, req, match.kind === 'operation' ? match.pathParams : {}, numericParameters) : { issues: [{ path: '', message: `${req.method} ${req.path} is not an operation of the contract` }] };
      // A body refused unread is answered by the body reader's error exit below, as the stubs answer it.
      if (options.strict && read.refusal) return next(read.refusal);
      const requestIssues = read.refusal ? [...read.issues, { path: 'body', message: read.refusal.message }] : read.issues;
      const requestViolations = requestIssues.map(issueText);
      const label = `${req.method} ${req.baseUrl}${req.path}`;
      if (requestViolations.length > 0) {
        log(`[proxy ${options.slug}] ${label} request: ${requestViolations.join('; ')}`);
        if (options.strict) {
          return reply(res, options.errors, operation, operation ? badInputStatus(operation) : 400, 'validation', `The request breaks the contract: ${requestViolations.join('; ')}`, {
            issues: requestIssues.map(({ path, message }) => ({ path, message })),
          });
        }
      }
      const tolerated = options.forwardTolerated && read.json !== undefined;
      // The stubs leave a body unread where the operation takes none (a GET with a stray body is a GET).
      const unread = options.forwardTolerated && operation !== undefined && !operation.op.requestBody;
      const body = unread ? undefined : tolerated ? Buffer.from(JSON.stringify(read.json)) : Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
      // The body's length is the one sent (Node frames a DELETE's body by neither length nor chunks, and
      // the upstream read it as the next request); the answer comes unencoded, as it is checked and passed on.
      const headers: OutgoingHttpHeaders = { 'accept-encoding': 'identity', ...(body ? { 'content-length': body.length } : {}) };
      for (const [name, value] of Object.entries(req.headers)) {
        if (!hopByHop.has(name) && name !== 'accept-encoding' && value !== undefined && !(unread && name === 'content-type')) headers[name] = value;
      }
      // The body read in its charset goes on as JSON text, which is UTF-8.
      if (tolerated && typeof headers['content-type'] === 'string') headers['content-type'] = essence(headers['content-type']);
      const answer = await forward(upstream, req.url, req.method, headers, body);
      const content = unencoded(answer);
      const status = answer.statusCode ?? 502;
      const type = String(answer.headers['content-type'] ?? '');
      const responseHeaders = (extra: string[]) => {
        for (const [name, value] of Object.entries(answer.headers)) {
          if (!hopByHop.has(name) && value !== undefined) res.setHeader(name, value);
        }
        const all = [...requestViolations.map((v) => `request: ${v}`), ...extra.map((v) => `response: ${v}`)];
        if (all.length > 0) res.setHeader(VIOLATIONS_HEADER, all.join(' | ').slice(0, 4000));
      };
      if (type.startsWith('text/event-stream')) {
        const statusProblems = operation && !declares(operation, status) ? [`status ${status} is not declared`] : [];
        res.status(status);
        responseHeaders(statusProblems);
        res.flushHeaders();
        await passFrames(content, res, (frame) => {
          const problems = operation ? schemaProblems(contract, [...responsePlace(operation, status), 'text/event-stream', 'schema'], frame) : [];
          if (problems.length > 0) log(`[proxy ${options.slug}] ${label} frame: ${problems.join('; ')}`);
          return !(options.strict && problems.length > 0);
        });
        return;
      }
      const bytes = Buffer.concat(await content.toArray());
      const responseViolations = operation ? responseProblems(contract, operation, status, type, bytes) : [];
      if (responseViolations.length > 0) {
        log(`[proxy ${options.slug}] ${label} response ${status}: ${responseViolations.join('; ')}`);
        if (options.strict) return reply(res, options.errors, operation, 502, 'internal', `The upstream answer breaks the contract: ${responseViolations.join('; ')}`);
      }
      res.status(status);
      responseHeaders(responseViolations);
      res.end(bytes);
    } catch (error) {
      next(error);
    }
  });
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    const match = contract.match(req.method, req.path);
    const operation = match.kind === 'operation' ? match.operation : undefined;
    res.locals.proxiedOperation = operation;
    // The body reader's refusals (over the size limit, an encoding it cannot undo, a body that is not
    // the gzip it says) are the client's, not the upstream's: answered as the stubs answer them.
    const failure = failureFromThrown(error, req, operation);
    if (failure.status < 500) {
      const mapped = options.errors({ ...failure, operation: operation && failedOperation(operation) });
      return void writeError(res.status(mapped.status).set({ ...(failure.headers ?? {}), ...(mapped.headers ?? {}) }), mapped);
    }
    log(`[proxy ${options.slug}] ${req.method} ${req.originalUrl}: upstream unreachable (${(error as Error).message})`);
    reply(res, options.errors, operation, 502, 'internal', `The upstream ${upstream} did not answer`);
  });
  return router;
}

/**
 * `npm run proxy`'s app: the proxy at the contract's base path, counting what clients exercised, and
 * `GET`/`DELETE /_stub/coverage` beside it answering that count as the stubs' controls do.
 */
export function validatingProxyApp(options: Omit<ProxyOptions, 'coverage'>): express.Express {
  const contract = options.contract ?? loadContract(options.slug);
  const coverage = new CoverageBook();
  const app = express();
  app.disable('x-powered-by');
  app.use('/_stub/coverage', coverageEndpoint(coverage));
  app.use(contract.basePath, createValidatingProxy({ ...options, contract, coverage: coverage.service(contract) }));
  return app;
}

/**
 * One exchange with the upstream over node:http, which reads every status as it came; WHATWG fetch
 * turns a 407 into a network error outside a browser window. The request target goes as the client
 * wrote it: parsed as a URL, `/projects/..` would reach the upstream as `/`, another operation.
 */
function forward(upstream: string, target: string, method: string, headers: OutgoingHttpHeaders, body: Buffer | undefined): Promise<IncomingMessage> {
  const base = new URL(upstream);
  const request = base.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const outgoing = request({ protocol: base.protocol, hostname: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${target}`, method, headers }, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The answer's body decoded, for an upstream that encodes it though asked not to. */
function unencoded(answer: IncomingMessage): Readable {
  const encoding = String(answer.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate' ? zlib.createUnzip() : encoding === 'br' ? zlib.createBrotliDecompress() : undefined;
  return decoder ? pipeline(answer, decoder, () => {}) : answer;
}

function reply(res: Response, errors: ErrorMapper, operation: OperationInfo | undefined, status: number, kind: FailureKind, message: string, more: Partial<Failure> = {}) {
  const mapped = errors({ ...more, kind, status, message, operation: operation && failedOperation(operation) });
  writeError(res.status(mapped.status).set(mapped.headers ?? {}), mapped);
}

/** ajv's errors of `value` against the schema at `place`; none where the contract has no schema there. */
function schemaErrors(contract: Contract, place: string[], value: unknown): ErrorObject[] {
  let validate;
  try {
    validate = contract.validator(place);
  } catch {
    return [];
  }
  return validate(value) ? [] : (validate.errors ?? []);
}

function schemaProblems(contract: Contract, place: string[], value: unknown): string[] {
  return schemaErrors(contract, place, value).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

function responsePlace(operation: OperationInfo, status: number): string[] {
  return ['paths', operation.path, operation.method, 'responses', responseKeyFor(operation, status) ?? 'default', 'content'];
}

/** A request problem as the error mappers take it: `path` like `body.name` or `query.limit`. */
interface RequestIssue {
  path: string;
  message: string;
}

const issueText = (issue: RequestIssue) => (issue.path ? `${issue.path} ${issue.message}` : issue.message);

/**
 * A body the stubs' reader refuses before its schema is read (a media type the operation does not
 * take, a charset other than UTF, JSON that does not parse), shaped as body-parser's errors so
 * failures.ts answers it with the stubs' status and words.
 */
type BodyRefusal = Error & { status: number; type?: string; charset?: string };

const refusal = (message: string, more: Omit<BodyRefusal, 'name' | 'message'>): BodyRefusal => Object.assign(new Error(message), more);

/** What a request breaks: required parameters missing, a body the stubs refuse, a JSON body off its schema; and the JSON body as the stubs read it. */
function requestProblems(
  contract: Contract,
  operation: OperationInfo,
  req: Request,
  pathParams: Record<string, string>,
  numericParameters: ReturnType<typeof numericParameterChecker>,
): { issues: RequestIssue[]; json?: unknown; refusal?: BodyRefusal } {
  const problems: RequestIssue[] = [...numericParameters(operation, req, pathParams)];
  for (const parameter of operation.op.parameters) {
    const value = parameter.in === 'query' ? req.query[parameter.name] : parameter.in === 'header' ? req.headers[String(parameter.name).toLowerCase()] : parameter.in === 'path' ? pathParams[parameter.name] : undefined;
    if (parameter.required && value === undefined) problems.push({ path: `${parameter.in}.${parameter.name}`, message: 'is required' });
  }
  const requestBody = deref(contract.document, operation.op.requestBody);
  const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (requestBody?.required && bytes.length === 0) problems.push({ path: 'body', message: 'is required' });
  const declared = Object.keys(requestBody?.content ?? {});
  const type = req.headers['content-type'];
  if (bytes.length > 0 && declared.length > 0 && !(type && declaresMediaType(declared, type))) {
    return { issues: problems, refusal: refusal(`unsupported media type ${type ? essence(type) : '(none)'}`, { status: 415 }) };
  }
  const jsonType = declared.find(isJsonType);
  if (jsonType && bytes.length > 0 && req.is('json')) {
    // body-parser reads JSON in a UTF encoding only; the stubs refuse any other charset.
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && !charset.startsWith('utf-')) return { issues: problems, refusal: refusal(`unsupported charset "${charset}"`, { status: 415, type: 'charset.unsupported', charset }) };
    let body: unknown;
    const text = decoded(bytes, charset);
    try {
      body = JSON.parse(text);
    } catch {
      return { issues: problems, refusal: refusal('the body is not valid JSON', { status: 400, type: 'entity.parse.failed' }) };
    }
    const overflowing = overflowingNumber(text, body);
    if (overflowing) return { issues: problems, refusal: refusal(`${overflowing} is not a finite number`, { status: 400, type: 'entity.parse.failed' }) };
    // Judged as the stubs judge it: the tolerant reader (DECISIONS G-1) drops the fields a request schema does not name.
    const refused = pruneBody(contract.document, deref(contract.document, requestBody?.content[jsonType])?.schema, body);
    problems.push(...(refused.length > 0 ? refused : schemaIssues(contract, ['paths', operation.path, operation.method, 'requestBody', 'content', jsonType, 'schema'], body)));
    return { issues: problems, json: body };
  }
  return { issues: problems };
}

/** The body's text in the charset it names, as body-parser decodes it (UTF-8 where TextDecoder does not know the label). */
function decoded(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

/** ajv's errors as issues: a missing property is named in the path, as the stubs' validator names it. */
function schemaIssues(contract: Contract, place: string[], value: unknown): RequestIssue[] {
  return schemaErrors(contract, place, value).map((e) => {
    const missing = e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : '';
    const pointer = `${e.instancePath}${missing}`;
    return { path: `body${pointer.replaceAll('/', '.')}`, message: missing ? 'is required' : (e.message ?? 'is invalid') };
  });
}

/** What an answer breaks: an undeclared status, an undeclared media type, a JSON body off its schema. */
function responseProblems(contract: Contract, operation: OperationInfo, status: number, type: string, bytes: Buffer): string[] {
  if (!declares(operation, status)) return [`status ${status} is not declared (${Object.keys(operation.op.responses ?? {}).join(', ')})`];
  const place = responsePlace(operation, status);
  const content = deref(contract.document, operation.op.responses?.[place[4]!])?.content;
  if (!content) return bytes.length > 0 ? [`status ${status} is declared without a body, and one came`] : [];
  const mediaType = Object.keys(content).find((declared) => type.split(';')[0]!.trim() === declared);
  if (!mediaType) return [`content type ${type || '(none)'} is not declared for ${status} (${Object.keys(content).join(', ')})`];
  if (!isJsonType(mediaType)) return [];
  try {
    return schemaProblems(contract, [...place, mediaType, 'schema'], JSON.parse(bytes.toString('utf8'))).map((p) => `body${p}`);
  } catch {
    return ['the body is not valid JSON'];
  }
}

/**
 * Writes an event stream through as it arrives, frame by frame (each written again by the stubs'
 * one writer, its data the text it came as), checking each complete frame; `check` false ends it.
 */
async function passFrames(body: Readable, res: Response, check: (frame: unknown) => boolean) {
  const decoder = new TextDecoder();
  let refused = false;
  const reader = createFrameReader(
    {
      frame(frame) {
        if (refused) return;
        if (!check({ ...frame, data: jsonOrText(frame.data as string) })) refused = true;
        else res.write(formatFrame(frame));
      },
      comment(text) {
        if (!refused) res.write(formatComment(text));
      },
      retry(ms) {
        if (!refused) res.write(formatRetry(ms));
      },
    },
    { rawData: true },
  );
  res.on('close', () => body.destroy());
  for await (const chunk of body as AsyncIterable<Buffer>) {
    reader.push(decoder.decode(chunk, { stream: true }));
    if (refused) break;
  }
  body.destroy();
  res.end();
}
