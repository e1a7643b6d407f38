/**
 * The oracle: what every answer must satisfy, whatever was asked (the contract, DECISIONS G-1 to
 * G-3). It returns violations instead of throwing, so one run collects all of them and the report
 * can group them by kind.
 */
import { documentsOnlyFailures, responseKeyFor } from '../../../server-stubs/lib/contract.js';
import { deref } from '../../../server-stubs/lib/openapi/document.js';
import type { OperationModel, PathModel, ServiceModel } from './contract-model.js';
import { bodyText, parsedAnswer, type FuzzRequest, type Observed } from './wire.js';
import { essence, isJsonType } from '../../../server-stubs/lib/media-types.js';

export interface Violation {
  /** stable category: the report groups by it, and it is the framework engineer's to-do item */
  kind: string;
  /** what exactly, short: the report counts distinct details */
  detail: string;
}

const snippet = (s: string, n = 80) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);
const header = (o: Observed, name: string) => {
  const v = o.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** A body's shape for grouping: strings elided unless they look like codes (`NOT_FOUND`). */
function shapeOf(value: unknown, depth = 0): string {
  if (depth > 3) return '…';
  if (typeof value === 'string') return /^[A-Za-z_.-]{1,40}$/.test(value) && !/^[a-z]+$/.test(value) ? JSON.stringify(value) : '"…"';
  if (Array.isArray(value)) return `[${value.slice(0, 2).map((v) => shapeOf(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${k}:${shapeOf(v, depth + 1)}`).join(',')}}`;
  return JSON.stringify(value);
}

/**
 * Never HTML, never a stack trace or a server file path (G-2). A match the request itself carried
 * (an echoed value) does not count: `requestText` is the request as text, or how to write it, which
 * is done only once a pattern matched (most answers match none).
 */
export function leakViolations(o: Observed, requestText: string | (() => string)): Violation[] {
  const out: Violation[] = [];
  const type = header(o, 'content-type') ?? '';
  if (/text\/html/i.test(type) || /^\s*<(?:!doctype|html|pre|body)/i.test(o.body)) {
    out.push({ kind: 'HTML body', detail: `${o.status} ${type || '(no content-type)'} ${snippet(o.body.replace(/\s+/g, ' '), 60)}` });
  }
  // Linear-time patterns only (bounded repeats, no nested quantifiers): bodies can be megabytes,
  // and a backtracking regex would hang the oracle, not the server.
  const frame = String.raw`(?:^|\n|\\n|<br>)[ \t]{0,40}(?:&nbsp;[ \t]?){0,12}at (?:async )?[\w$.<>\[\]]{1,120}(?: \[as [\w$]{1,60}\])? \(`;
  const leaks: Array<[string, RegExp]> = [
    ['stack frame', new RegExp(`${frame}|(?:^|\\n|\\\\n)[ \\t]{1,40}at (?:file:\\/\\/)?\\/[\\w./-]{1,300}:\\d+`)],
    ['server path /work/', /\/work\//],
    ['node_modules path', /node_modules/],
    ['source position .ts:<line>', /\.[cm]?[tj]s:\d+/],
    // Starts with its literal, so the engine skips to each `Error: ` instead of trying every position.
    ['Error: with a stack', new RegExp(String.raw`Error: [^\n]{0,300}?(?:\n|\\n|<br>)[ \t]{0,40}(?:&nbsp;[ \t]?){0,12}at `)],
  ];
  const body = o.body.length > 512 * 1024 ? o.body.slice(0, 512 * 1024) : o.body;
  let request: string | undefined;
  const echoed = (text: string) => (request ??= typeof requestText === 'string' ? requestText : requestText()).includes(text);
  for (const [what, re] of leaks) {
    const m = re.exec(body);
    if (m && !echoed(m[0].trim())) {
      out.push({ kind: 'stack trace or file path in body', detail: `${what}: ${snippet(body.slice(Math.max(0, m.index - 30), m.index + 60), 90)}` });
    }
  }
  return out;
}

/** What the oracle holds answers to: the service's model, its operations found by `METHOD /template`. */
interface OracleContext {
  model: ServiceModel;
  byRoute: Map<string, OperationModel>;
}

export function createHttpOracle(model: ServiceModel) {
  const context: OracleContext = { model, byRoute: new Map(model.operations.map((m) => [`${m.operation.method.toUpperCase()} ${m.operation.path}`, m])) };
  return function oracle(r: FuzzRequest, o: Observed): Violation[] {
    if (o.error) return [{ kind: 'no answer', detail: `${r.case}: ${o.error}` }];
    return [...anyAnswerViolations(context, r, o), ...routeViolations(context, r, o)];
  };
}

/** What every answer must keep, whatever it answered: no leak, JSON errors, no crash, CORS, unknown query parameters ignored. */
function anyAnswerViolations(context: OracleContext, r: FuzzRequest, o: Observed): Violation[] {
  const requestText = () => `${r.path} ${r.query.flat().join(' ')} ${bodyText(r.body, 64 * 1024) ?? ''}`;
  // HTML is a leak unless the operation declares it for this status (an OAuth consent page).
  const out: Violation[] = leakViolations(o, requestText).filter((v) => v.kind !== 'HTML body' || !declaresHtml(context, r, o));
  const type = header(o, 'content-type');
  // An error is JSON, unless the operation declares a page for it (an OAuth refusal a browser sees).
  if (o.status >= 400 && o.body !== '' && !isJsonType(type ?? '') && !declaresHtml(context, r, o)) {
    out.push({ kind: 'error answer is not JSON', detail: `${o.status} ${type ?? '(no content-type)'} for ${r.case}` });
  }
  if (o.status >= 500 && o.status !== 501 && !isDocumentedAnswer(context, r, o)) out.push({ kind: 'server error (5xx)', detail: `${o.status} ${snippet(o.body, 100)}` });
  if (r.headers.origin && !header(o, 'access-control-allow-origin')) {
    out.push({ kind: 'no CORS header on an answer to a browser (G-3)', detail: `${r.method} ${o.status}` });
  }
  if (r.unknownQuery?.length && o.status === 400) {
    const refused = r.unknownQuery.filter((n) => o.body.includes(`'${n}'`) || o.body.includes(`"${n}"`) || o.body.includes(`query.${n}`));
    if (refused.length) out.push({ kind: 'unknown query parameter refused (G-1)', detail: `${refused.join(', ')}: ${snippet(o.body, 80)}` });
  }
  return out;
}

/** What the answer must keep for where the request went: an unknown path, an OPTIONS, an unknown method, or an operation. */
function routeViolations(context: OracleContext, r: FuzzRequest, o: Observed): Violation[] {
  if (o.status === 431) return oversizedRequestViolations(r);
  const path = context.model.match(r.path);
  if (!path) return unknownPathViolations(context, r, o);
  if (r.method === 'OPTIONS' && !path.methods.includes('OPTIONS')) return optionsViolations(context, r, o, path);
  const method = r.method === 'HEAD' && !path.methods.includes('HEAD') ? 'GET' : r.method;
  const m = context.byRoute.get(`${method} ${path.template}`);
  if (!m) return unknownMethodViolations(context, r, o, path);
  return operationViolations(context, m, r, o);
}

/**
 * Node refuses a request line and headers over 16 KB before any service sees it (431): transport
 * level, like a dropped connection, so it is held only to JSON, not to a service's error shape.
 */
function oversizedRequestViolations(r: FuzzRequest): Violation[] {
  const size = r.path.length + r.query.flat().join('&').length + Object.values(r.headers).join('').length;
  return size < 16 * 1024 ? [{ kind: '431 on a request under 16 KB', detail: `${r.method} ${r.path.slice(0, 60)}: ${size} bytes` }] : [];
}

function unknownPathViolations(context: OracleContext, r: FuzzRequest, o: Observed): Violation[] {
  const out: Violation[] = [];
  if (o.status !== 404) out.push({ kind: 'unknown path not answered 404', detail: `${r.method} ${o.status}` });
  out.push(...frameworkErrorBody(context, o, `unknown path, ${o.status}`));
  return out;
}

/** An OPTIONS the path does not declare: the framework's CORS preflight or Allow answer (G-3). */
function optionsViolations(context: OracleContext, r: FuzzRequest, o: Observed, path: PathModel): Violation[] {
  const out: Violation[] = [];
  if (o.status !== 204 && o.status !== 200) out.push({ kind: 'OPTIONS not answered 204/200 (G-3)', detail: `${o.status} on ${path.template}` });
  const preflight = Boolean(r.headers['access-control-request-method']);
  const allow = header(o, 'allow') ?? header(o, 'access-control-allow-methods');
  if (!allow || (preflight && !header(o, 'access-control-allow-origin'))) {
    out.push({ kind: 'OPTIONS without CORS/Allow headers (G-3)', detail: `${preflight ? 'preflight' : 'plain'} OPTIONS ${path.template}` });
  }
  if (o.status >= 400) out.push(...frameworkErrorBody(context, o, `OPTIONS, ${o.status}`));
  return out;
}

/** A method the path does not declare: 405 with an Allow header listing the path's methods (G-3). */
function unknownMethodViolations(context: OracleContext, r: FuzzRequest, o: Observed, path: PathModel): Violation[] {
  const out: Violation[] = [];
  if (o.status !== 405) out.push({ kind: 'unknown method not answered 405 (G-3)', detail: `${r.method} ${path.template} answered ${o.status}` });
  else {
    const allow = (header(o, 'allow') ?? '').toUpperCase();
    const missing = path.methods.filter((x) => !allow.split(/\s*,\s*/).includes(x));
    if (missing.length) out.push({ kind: '405 without an Allow header listing the path\'s methods', detail: `${path.template}: Allow ${JSON.stringify(header(o, 'allow') ?? null)} lacks ${missing.join(', ')}` });
  }
  out.push(...frameworkErrorBody(context, o, `unknown method, ${o.status}`));
  return out;
}

/**
 * Does a parsed body fit one of the service's documented 4xx error schemas, or the error schema
 * they are built on? An answer without an operation (405) has no response of its own to pin it
 * to one status's code.
 */
function fitsDocumentedError({ model }: OracleContext, body: unknown): boolean {
  return (
    model.errorShapes.some((e) => model.checker.responseErrors(e.path, e.method, e.status, body, e.mediaType).length === 0) ||
    model.errorSchemas.some((name) => model.checker.schemaErrors(name, body).length === 0)
  );
}

/** An error answer of the framework (unknown path or method): JSON in one of the service's documented error bodies. */
function frameworkErrorBody(context: OracleContext, o: Observed, what: string): Violation[] {
  if (o.body === '') return [];
  const parsed = parsedAnswer(o);
  if (!parsed.ok) return [{ kind: 'error body is not a documented error shape', detail: `${what}: not JSON` }];
  return fitsDocumentedError(context, parsed.value) ? [] : [{ kind: 'error body is not a documented error shape', detail: `${what}: ${shapeOf(parsed.value)}` }];
}

/** The answer to an operation: its declared responses, and what the generator expected of it. */
function operationViolations(context: OracleContext, m: OperationModel, r: FuzzRequest, o: Observed): Violation[] {
  if (o.status === 501) {
    // A HEAD answer has no body to hold to the error shape; its GET twin is checked instead.
    if (r.method === 'HEAD') return o.body === '' ? [] : [{ kind: 'HEAD answer has a body', detail: m.label }];
    return notImplementedViolations(context, m, o);
  }
  return [...declaredResponseViolations(context, m, r, o), ...expectationViolations(m, r, o)];
}

function notImplementedViolations({ model }: OracleContext, m: OperationModel, o: Observed): Violation[] {
  const parsed = parsedAnswer(o);
  if (!parsed.ok) return [{ kind: '501 without the documented error body', detail: `${m.label}: not JSON` }];
  const body = parsed.value;
  const errorStatuses = Object.keys(m.operation.op.responses ?? {}).filter((s) => /^[45]/.test(s) || s === 'default');
  const fits = errorStatuses.some((s) => {
    const content = deref(model.document, m.operation.op.responses?.[s])?.content ?? {};
    return Object.keys(content).some((type) => isJsonType(type) && model.checker.responseErrors(m.operation.path, m.operation.method, s, body, type).length === 0);
  });
  const out: Violation[] = [];
  if (!fits) out.push({ kind: '501 without the documented error body', detail: `${m.label}: ${snippet(o.body, 70)} fits none of ${errorStatuses.join(', ')}` });
  if (!/not implemented/i.test(o.body)) out.push({ kind: '501 without the documented error body', detail: `${m.label}: does not say "not implemented"` });
  return out;
}

/** The answer against the response the operation declares for its status. */
function declaredResponseViolations(context: OracleContext, m: OperationModel, r: FuzzRequest, o: Observed): Violation[] {
  const key = responseKeyFor(m.operation, o.status);
  // An operation that declares no responses at all (3.1 allows it) has no answer to hold to.
  if (!key && Object.keys(m.operation.op.responses ?? {}).length === 0) return [];
  if (!key) {
    const out: Violation[] = [{ kind: 'status not declared for the operation', detail: `${o.status} on ${m.label}` }];
    if (o.status >= 400 && r.method !== 'HEAD') out.push(...frameworkErrorBody(context, o, `undeclared ${o.status}`));
    return out;
  }
  const response = deref(context.model.document, m.operation.op.responses?.[key]);
  const out: Violation[] = [];
  for (const [name, declaredHeader] of Object.entries(response?.headers ?? {})) {
    if (deref(context.model.document, declaredHeader)?.required && header(o, name.toLowerCase()) === undefined) {
      out.push({ kind: 'required response header missing', detail: `${name} on ${o.status} of ${m.label}` });
    }
  }
  return [...out, ...contentViolations(context, m, r, o, key, response?.content ?? {})];
}

/** The answer's media type and body against the content declared for its status (`key`). */
function contentViolations(context: OracleContext, m: OperationModel, r: FuzzRequest, o: Observed, key: string, content: Record<string, unknown>): Violation[] {
  if (r.method === 'HEAD') return o.body !== '' ? [{ kind: 'HEAD answer has a body', detail: m.label }] : [];
  if (Object.keys(content).length === 0) return o.body !== '' ? [{ kind: 'body on a response declared without content', detail: `${o.status} on ${m.label}` }] : [];
  if (o.body === '' && (o.status === 204 || o.status === 304)) return [];
  const type = essence(header(o, 'content-type') ?? '');
  const declared = Object.keys(content).find((t) => t.toLowerCase() === type);
  if (!declared) return [{ kind: 'response media type not declared', detail: `${o.status} ${type || '(none)'} on ${m.label} (declared ${Object.keys(content).join(', ')})` }];
  // Event streams are cut after their first moments by the sender: their frames are the stream tests' business.
  if (!isJsonType(declared) || o.truncated) return [];
  const parsed = parsedAnswer(o);
  if (!parsed.ok) return [{ kind: 'response body does not match the contract', detail: `${m.label} ${o.status}: ${parsed.error.slice(0, 80)}` }];
  try {
    const errors = context.model.checker.responseErrors(m.operation.path, m.operation.method, key, parsed.value, declared);
    return errors.length ? [{ kind: 'response body does not match the contract', detail: `${m.label} ${o.status}: ${errors.slice(0, 2).join('; ')}` }] : [];
  } catch (error) {
    return [{ kind: 'response body does not match the contract', detail: `${m.label} ${o.status}: ${(error as Error).message.slice(0, 80)}` }];
  }
}

/** What the generator expected holds only for the operation it aimed at (an odd path may address another). */
function expectationViolations(m: OperationModel, r: FuzzRequest, o: Observed): Violation[] {
  if (r.aim !== m.label) return [];
  const out: Violation[] = [];
  const success = (o.status >= 200 && o.status < 300) || o.status === 501;
  if (r.expect === 'reject' && success) {
    out.push({ kind: 'bad input accepted', detail: `${r.case}: ${m.label} answered ${o.status}` });
  }
  if (r.expect === 'accept' && o.status === 401) {
    out.push({ kind: 'valid credential refused', detail: `${m.label}: ${snippet(o.body, 60)}` });
  }
  // A request the contract allows (checked with ajv) refused in the validator's words: the stub
  // reads the contract differently (a format, a oneOf, a coercion).
  if (r.expect === 'accept' && o.status === 400 && /\bmust (?:be|have|match|NOT|equal|pass)\b/.test(o.body)) {
    out.push({ kind: 'valid request refused by validation', detail: `${m.label}: ${snippet(o.body, 100)}` });
  }
  return out;
}

/** The operation a request addresses (a HEAD, its GET), when its path matches one. */
function addressedOperation({ model, byRoute }: OracleContext, r: FuzzRequest): OperationModel | undefined {
  const path = model.match(r.path);
  return path && byRoute.get(`${r.method === 'HEAD' ? 'GET' : r.method} ${path.template}`);
}

function declaresHtml(context: OracleContext, r: FuzzRequest, o: Observed): boolean {
  const m = addressedOperation(context, r);
  const key = m && responseKeyFor(m.operation, o.status);
  if (!m || !key) return false;
  const content = deref(context.model.document, m.operation.op.responses?.[key])?.content ?? {};
  return Object.keys(content).some((type) => type.toLowerCase() === 'text/html');
}

/** A declared 5xx of an operation that documents only failures: its answer, not a crash. */
function isDocumentedAnswer(context: OracleContext, r: FuzzRequest, o: Observed): boolean {
  const m = addressedOperation(context, r);
  return Boolean(m && responseKeyFor(m.operation, o.status) && documentsOnlyFailures(m.operation));
}
