/**
 * Fuzzing the JSON-RPC 2.0 node behind `POST /chain-rpc`: calls generated from the OpenRPC
 * document's param schemas (by name and by position), and every malformed thing a client or an
 * attacker can send. The oracle holds every answer to JSON-RPC 2.0 (spec §5, §6): an envelope
 * with `jsonrpc: "2.0"`, the request's id (or null), exactly one of `result`/`error`; nothing for
 * notifications; never -32603 (an internal error is a crash in disguise).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { createAjv } from '../../../server-stubs/lib/openapi/ajv.js';
import { isJsonType } from '../../../server-stubs/lib/media-types.js';
import { chainOnce } from './chain-once.js';
import { createSchemaArbitraries, encodeJson, nastyString, RawJson, Repeat, withOwnKey } from './arbitraries.js';
import { leakViolations, type Violation } from './oracle.js';
import type { FuzzTarget } from './runner.js';
import { bodyText, describeObserved, describeRequest, type BodyPart, type FuzzRequest, type Observed, type Sender } from './wire.js';
import { isJsonObject, isSchemaNode, type JsonObject, type Schema, type SchemaNode } from '../../../server-stubs/lib/openapi/json-schema.js';

const schemaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../schemas/chain-rpc');
const SCHEMA_BASE = 'https://contracts.platform.example/schemas/chain-rpc/';
export const CHAIN_RPC_BASE_PATH = '/chain-rpc';

/** A generated JSON-RPC request on HTTP, with what the generator knows about each call in it. */
export interface RpcRequest extends FuzzRequest {
  /** per call with an id: is its params object valid for its method (by the OpenRPC schemas)? */
  calls?: Array<{ id: unknown; method: string; params: 'valid' | 'invalid' | 'unknown' }> | undefined;
  /** not a JSON-RPC POST at all (another HTTP method or path): only the generic checks apply */
  plainHttp?: boolean;
}

interface MethodModel {
  name: string;
  paramNames: string[];
  paramsSchema: SchemaNode;
  validParams: (params: unknown) => boolean;
  validResult: ((result: unknown) => boolean) | undefined;
}

/** An OpenRPC method as the fuzz reads it: its params (by name) and result schemas. */
interface OpenRpcMethod {
  name: string;
  params: Array<{ name: string; required: boolean; schema: Schema }>;
  resultSchema: Schema | undefined;
  /** the published request type the params object as a whole must be */
  paramsSchema: SchemaNode | undefined;
  notification: boolean;
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];

/** The methods of the OpenRPC document; a method or param without a name is not one. */
function openRpcMethods(document: unknown): OpenRpcMethod[] {
  const methods = isJsonObject(document) && Array.isArray(document.methods) ? (document.methods as unknown[]) : [];
  return methods.filter(isJsonObject).flatMap((m): OpenRpcMethod[] => {
    if (typeof m.name !== 'string') return [];
    const params = (Array.isArray(m.params) ? (m.params as unknown[]) : []).filter(isJsonObject).flatMap((p) =>
      typeof p.name === 'string' ? [{ name: p.name, required: p.required === true, schema: isSchemaNode(p.schema) || typeof p.schema === 'boolean' ? p.schema : {} }] : [],
    );
    const result = isJsonObject(m.result) ? m.result.schema : undefined;
    return [
      {
        name: m.name,
        params,
        resultSchema: isSchemaNode(result) || typeof result === 'boolean' ? result : undefined,
        paramsSchema: isSchemaNode(m['x-params-schema']) ? m['x-params-schema'] : undefined,
        notification: Boolean(m['x-notification']),
      },
    ];
  });
}

/** The params object's schema: the published request type, else one built from the listed params. */
function paramsSchemaOf(method: OpenRpcMethod): SchemaNode {
  return (
    method.paramsSchema ?? {
      type: 'object',
      properties: Object.fromEntries(method.params.map((p) => [p.name, p.schema])),
      required: method.params.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    }
  );
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function loadModel() {
  const files = readdirSync(schemaDir).filter((f) => f.endsWith('.json') && !f.endsWith('.openrpc.json'));
  const byName = new Map<string, SchemaNode>();
  const ajv = createAjv({ strict: false, allErrors: false });
  for (const file of files) {
    const json = readJson(path.join(schemaDir, file));
    if (!isSchemaNode(json)) continue;
    byName.set(file, json);
    ajv.addSchema(json, json.$id ?? `${SCHEMA_BASE}${file}`);
  }
  const schemas = createSchemaArbitraries((ref) => (ref.startsWith('#') ? undefined : byName.get(path.basename(ref))));
  // Compiled with an $id beside the schema files, so `./Hash.json` resolves as the document means it.
  let n = 0;
  const compile = (schema: Schema): ValidateFunction => ajv.compile(typeof schema === 'boolean' ? schema : { ...schema, $id: `${SCHEMA_BASE}_fuzz_${n++}.json` });

  const methods: MethodModel[] = openRpcMethods(readJson(path.join(schemaDir, 'chain-rpc.openrpc.json')))
    .filter((m) => !m.notification)
    .map((m) => {
      const paramsSchema = paramsSchemaOf(m);
      const paramsValidator = compile(paramsSchema);
      const resultValidator = m.resultSchema ? compile(m.resultSchema) : undefined;
      return {
        name: m.name,
        paramNames: m.params.map((p) => p.name),
        paramsSchema,
        validParams: (value: unknown) => paramsValidator(value) as boolean,
        validResult: resultValidator ? (value: unknown) => resultValidator(value) as boolean : undefined,
      };
    });
  // `rpc.discover` is OpenRPC's own method; the node serves its document there.
  methods.push({ name: 'rpc.discover', paramNames: [], paramsSchema: { type: 'object', additionalProperties: false }, validParams: (v) => isJsonObject(v) && Object.keys(v).length === 0, validResult: undefined });
  return { methods, schemas };
}

type SchemaArbitraries = ReturnType<typeof createSchemaArbitraries>;

const idArb: fc.Arbitrary<string | number | null> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 1_000_000 }), weight: 4 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 2 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.integer({ min: -1_000_000, max: -1 }), weight: 1 },
);

// ------------------------------------------------------------------------------ request builders

/** A JSON-RPC message; an undefined id makes a notification, undefined params leave them out. */
function envelope(id: unknown, name: string, params: unknown): JsonObject {
  const m: JsonObject = { jsonrpc: '2.0' };
  if (id !== undefined) m.id = id;
  m.method = name;
  if (params !== undefined) m.params = params;
  return m;
}

/** A POST of a value as JSON (`null`: no content type). */
function post(c: string, value: unknown, calls?: RpcRequest['calls'], contentType: string | null = 'application/json'): RpcRequest {
  return { ...raw(c, encodeJson(value), contentType), calls };
}

/** A POST of the exact body parts given. */
function raw(c: string, body: BodyPart[], contentType: string | null = 'application/json'): RpcRequest {
  return { case: c, method: 'POST', path: '', query: [], headers: contentType === null ? {} : { 'content-type': contentType }, body, expect: 'any' };
}

/** The params of a generated call as an object (a positional list or a scalar has no named members). */
const namedParams = (params: unknown): JsonObject => (isJsonObject(params) ? params : {});

// ------------------------------------------------------------------------- the calls, good and bad

interface ValidCall {
  id: string | number | null;
  m: MethodModel;
  params: unknown;
  message: JsonObject;
  verdict: 'valid' | 'unknown';
}

/** A valid call of a method, by name: the message and what we know of it. */
function validCalls(method: fc.Arbitrary<MethodModel>, schemas: SchemaArbitraries): fc.Arbitrary<ValidCall> {
  return chainOnce(method, (m) =>
    fc.tuple(idArb, schemas.valid(m.paramsSchema), fc.boolean()).map(([id, params, omit]) => {
      const noParams = omit && params && typeof params === 'object' && Object.keys(params).length === 0;
      return { id, m, params, message: envelope(id, m.name, noParams ? undefined : params), verdict: m.validParams(params) ? ('valid' as const) : ('unknown' as const) };
    }),
  );
}

function byPositionCalls(validCall: fc.Arbitrary<ValidCall>): fc.Arbitrary<RpcRequest> {
  return validCall.map(({ id, m, params }) => {
    const values = m.paramNames.map((n) => (params as Record<string, unknown> | undefined)?.[n]);
    while (values.length && values[values.length - 1] === undefined) values.pop();
    // OpenRPC `paramStructure: by-name`: a positional list is refused (-32602) unless empty.
    return post('call by position', envelope(id, m.name, values.map((v) => (v === undefined ? null : v))), [{ id, method: m.name, params: values.length ? 'invalid' : 'unknown' }]);
  });
}

/** Params that break their schema, judged on what the node will parse (1e309 is Infinity there). */
function invalidParamsCalls(method: fc.Arbitrary<MethodModel>, schemas: SchemaArbitraries): fc.Arbitrary<RpcRequest> {
  return chainOnce(method, (m) => {
    const mutant = schemas.invalid(m.paramsSchema);
    const containers = fc.constantFrom<unknown>(5, 'x', true, new RawJson('null'));
    const broken = mutant ? fc.oneof(mutant, containers.map((value) => ({ value, certain: true }))) : containers.map((value) => ({ value, certain: true }));
    return fc.tuple(idArb, broken).map(([id, { value, certain }]) => {
      const request = post('invalid params', envelope(id, m.name, value));
      return { ...request, calls: [{ id, method: m.name, params: paramsVerdict(m, request, certain) }] };
    });
  });
}

/** Whether the params the node will read are invalid, when the body is small enough to re-read. */
function paramsVerdict(m: MethodModel, request: RpcRequest, certain: boolean): 'invalid' | 'unknown' {
  const text = bodyText(request.body);
  if (text === undefined) return certain ? 'invalid' : 'unknown';
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return 'unknown'; // not JSON at all: the answer is a parse error, with a null id
  }
  const params = isJsonObject(message) ? message.params : undefined;
  // An empty positional list is JSON-RPC's "no arguments": not judged either way.
  if (Array.isArray(params) && params.length === 0) return 'unknown';
  if (params === null || typeof params !== 'object') return 'invalid';
  return m.validParams(params) ? 'unknown' : 'invalid';
}

function unknownMethodCalls(methods: MethodModel[]): fc.Arbitrary<RpcRequest> {
  return fc
    .tuple(idArb, fc.oneof(fc.constantFrom('chain_', 'CHAIN_GETBLOCK', 'eth_blockNumber', 'rpc.', 'rpc.unknown', '', ...PROTOTYPE_KEYS, 'chain_getBlock\u0000'), fc.string({ maxLength: 20 }), nastyString()))
    .filter(([, name]) => !methods.some((m) => m.name === name))
    .map(([id, name]) => post('unknown method', envelope(id, name, {}), [{ id, method: name, params: 'unknown' }]));
}

function prototypeKeyCalls(validCall: fc.Arbitrary<ValidCall>): fc.Arbitrary<RpcRequest> {
  return fc
    .tuple(validCall, fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom<unknown>({}, { polluted: true }, { prototype: { polluted: true } }, 1, null), fc.boolean())
    .map(([{ id, m, params }, key, value, onEnvelope]) => {
      if (onEnvelope) return post('prototype keys (envelope)', withOwnKey(envelope(id, m.name, params), key, value), [{ id, method: m.name, params: 'unknown' }]);
      return post('prototype keys as param names', envelope(id, m.name, withOwnKey(namedParams(params), key, value)), [{ id, method: m.name, params: 'unknown' }]);
    });
}

interface BatchParts {
  validCall: fc.Arbitrary<ValidCall>;
  byName: fc.Arbitrary<RpcRequest>;
  notification: fc.Arbitrary<RpcRequest>;
  unknownMethod: fc.Arbitrary<RpcRequest>;
}

/** Batches of calls, notifications, unknown methods and garbage; empty, all-notification and nested ones. */
function batches({ validCall, byName, notification, unknownMethod }: BatchParts): fc.Arbitrary<RpcRequest> {
  const entry = fc.oneof(
    validCall.map((c) => ({ message: c.message as unknown, call: { id: c.id, method: c.m.name, params: c.verdict } })),
    validCall.map((c) => ({ message: envelope(undefined, c.m.name, c.params) as unknown, call: undefined })),
    unknownMethod.map((r) => ({ message: JSON.parse(bodyText(r.body)!) as unknown, call: undefined })),
    fc.constantFrom<unknown>(1, 'x', null, [], {}, { jsonrpc: '1.0', id: 1, method: 'chain_getChainInfo' }).map((message) => ({ message, call: undefined })),
  );
  return fc.oneof(
    { arbitrary: fc.array(entry, { minLength: 1, maxLength: 6 }).map((entries) => post('batch', entries.map((e) => e.message), entries.flatMap((e) => (e.call ? [e.call] : [])))), weight: 5 },
    { arbitrary: fc.constant(raw('batch: empty', ['[]'])), weight: 1 },
    { arbitrary: fc.array(notification, { minLength: 1, maxLength: 4 }).map((ns) => raw('batch: notifications only', [`[${ns.map((n) => bodyText(n.body)).join(',')}]`])), weight: 1 },
    { arbitrary: byName.map((r) => raw('batch: nested', [`[[${bodyText(r.body)}]]`])), weight: 1 },
  );
}

// ---------------------------------------------------------------------- bodies that are not calls

/** Broken JSON: fixed shapes, and valid calls cut short. */
function malformedBodies(byName: fc.Arbitrary<RpcRequest>): fc.Arbitrary<RpcRequest> {
  return fc
    .oneof(
      fc.constantFrom('{', '{"jsonrpc":"2.0",', '[{"jsonrpc":"2.0","id":1,"method":"chain_getChainInfo"},', "{'jsonrpc':'2.0'}", '{"jsonrpc":"2.0","id":01}', '', ' ', 'nul', '\ufeff{}', '{"a":1}{"b":2}'),
      byName.chain((r) => {
        const text = bodyText(r.body)!;
        return fc.integer({ min: 1, max: Math.max(1, text.length - 1) }).map((cut) => text.slice(0, cut));
      }),
    )
    .map((text) => raw('malformed JSON', [text]));
}

const nonObjectBodies = () => fc.constantFrom('1', '"x"', 'null', 'true', '[1,2]', '{}', '3.14', '-0').map((text) => raw('non-object body', [text]));

/** A getChainInfo call with one envelope member wrong or missing. */
function badEnvelopes(): fc.Arbitrary<RpcRequest> {
  const changes = fc.constantFrom<[string, unknown]>(
    ['jsonrpc', '1.0'],
    ['jsonrpc', 2],
    ['jsonrpc', undefined],
    ['method', 5],
    ['method', undefined],
    ['method', null],
    ['id', { a: 1 }],
    ['id', [1]],
    ['id', true],
    ['id', 1.5],
    ['id', new RawJson('1e400')],
    ['id', new RawJson('-0')],
    ['id', new RawJson('123456789012345678901234567890')],
    ['id', new RawJson('1e-400')],
    ['params', null],
    ['params', 'text'],
  );
  return fc.tuple(idArb, changes).map(([id, [key, value]]) => {
    const message = envelope(id, 'chain_getChainInfo', {});
    if (value === undefined) delete message[key];
    else message[key] = value;
    return post('bad envelope', message);
  });
}

function wrongContentTypes(byName: fc.Arbitrary<RpcRequest>): fc.Arbitrary<RpcRequest> {
  const contentTypes = fc.constantFrom<string | null>(
    'text/plain',
    'application/x-www-form-urlencoded',
    null,
    'application/json; charset=latin9',
    'application/json; charset=utf-16',
    'multipart/form-data; boundary=x',
    'application/xml',
  );
  return fc.tuple(byName, contentTypes).map(([r, type]): RpcRequest => ({ ...r, case: 'wrong content type', headers: type === null ? {} : { 'content-type': type } }));
}

function oversizedBodies(): fc.Arbitrary<RpcRequest> {
  return fc.tuple(idArb, fc.constantFrom(1_100_000, 2_000_000, 4_000_000), fc.boolean()).map(([id, size, asBatch]) =>
    asBatch
      ? post('body over 1 MB', new Repeat(envelope(id, 'chain_getChainInfo', {}), Math.ceil(size / 60)))
      : post('body over 1 MB', envelope(id, 'chain_estimateFee', { priority: new Repeat('x', size, true) })),
  );
}

/** NUL and odd unicode in the method, a param or the id, and invalid UTF-8 bytes in the method name. */
function nastyTextCalls(validCall: fc.Arbitrary<ValidCall>): fc.Arbitrary<RpcRequest> {
  return fc.tuple(validCall, nastyString(), fc.constantFrom('method', 'param', 'id', 'bytes')).map(([{ id, m, params }, text, where]) => {
    if (where === 'method') return post('NUL / unicode', envelope(id, `${m.name}${text}`, params));
    if (where === 'id') return post('NUL / unicode', envelope(text, m.name, params), [{ id: text, method: m.name, params: 'unknown' }]);
    if (where === 'param') {
      const base = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
      const key = Object.keys(base)[0] ?? m.paramNames[0] ?? 'x';
      return post('NUL / unicode', envelope(id, m.name, withOwnKey(base, key, text)), [{ id, method: m.name, params: 'unknown' }]);
    }
    const json = JSON.stringify(envelope(id, m.name, params));
    const at = json.indexOf(`"method":${JSON.stringify(m.name)}`) + `"method":"${m.name}`.length;
    return raw('NUL / unicode', [json.slice(0, at), { bytes: [0xc0, 0xaf, 0xff, 0x80] }, json.slice(at)]);
  });
}

/** Deep nesting: recursive parsers, validators and serializers run out of stack. */
function deeplyNestedBodies(): fc.Arbitrary<RpcRequest> {
  return fc.tuple(idArb, fc.integer({ min: 5_000, max: 200_000 }), fc.constantFrom('[', '{"a":')).map(([id, depth, open]) => {
    const close = open === '[' ? ']' : '}';
    const head = JSON.stringify(envelope(id, 'chain_estimateFee', { priority: 'low' })).replace('"low"', '');
    return raw('deeply nested JSON', [head, { repeat: open, times: depth }, '1', { repeat: close, times: depth }, '}}']);
  });
}

function plainHttpRequests(): fc.Arbitrary<RpcRequest> {
  return fc
    .tuple(fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'POST'), fc.constantFrom('', '/', '/nope', '/ws/x', '/%2e%2e/etc/passwd'))
    .filter(([m, p]) => !(m === 'POST' && (p === '' || p === '/')))
    .map(([m, p]): RpcRequest => ({ case: 'other HTTP method or path', method: m, path: p, query: [], headers: {}, expect: 'any', plainHttp: true }));
}

// --------------------------------------------------------------------------------- the generator

/** Valid calls and notifications (80 % and 20 % of the weight of the bad input), then each family of bad input. */
export function chainRpcArbitrary(): fc.Arbitrary<RpcRequest> {
  const { methods, schemas } = loadModel();
  const method = fc.constantFrom(...methods);
  const validCall = validCalls(method, schemas);
  const byName = validCall.map(({ id, m, message, verdict }) => post('valid call (by name)', message, [{ id, method: m.name, params: verdict }]));
  const notification = validCall.map(({ m, params }) => post('notification', envelope(undefined, m.name, params)));
  const unknownMethod = unknownMethodCalls(methods);

  const bad: Array<[fc.Arbitrary<RpcRequest>, number]> = [
    [invalidParamsCalls(method, schemas), 8],
    [unknownMethod, 4],
    [prototypeKeyCalls(validCall), 5],
    [batches({ validCall, byName, notification, unknownMethod }), 8],
    [malformedBodies(byName), 4],
    [nonObjectBodies(), 2],
    [badEnvelopes(), 4],
    [wrongContentTypes(byName), 4],
    [oversizedBodies(), 1],
    [nastyTextCalls(validCall), 4],
    [plainHttpRequests(), 2],
    [deeplyNestedBodies(), 2],
    [byPositionCalls(validCall), 4],
  ];
  const badWeight = bad.reduce((n, [, w]) => n + w, 0);
  return fc.oneof(
    { arbitrary: byName, weight: Math.round(badWeight * 0.8) },
    { arbitrary: notification, weight: Math.round(badWeight * 0.2) },
    ...bad.map(([arbitrary, weight]) => ({ arbitrary, weight })),
  );
}

// ------------------------------------------------------------------------------------------ oracle

const validId = (id: unknown) => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
const isNotification = (m: unknown): boolean => {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return false;
  const r = m as Record<string, unknown>;
  return !('id' in r) && r.jsonrpc === '2.0' && typeof r.method === 'string' && (!('params' in r) || (r.params !== null && typeof r.params === 'object'));
};

type Expected = { kind: 'none' } | { kind: 'single'; id: unknown; method?: string | undefined } | { kind: 'batch'; ids: unknown[]; methods: Map<string, string> } | { kind: 'unknown' };

/** What the request calls for, from the bytes actually sent (the node sees the same). */
function expectedFrom(r: RpcRequest): Expected {
  const text = bodyText(r.body, 512 * 1024);
  if (text === undefined) return { kind: 'unknown' };
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'single', id: null };
  }
  if (Array.isArray(message)) {
    if (message.length === 0) return { kind: 'single', id: null };
    const answered = message.filter((m) => !isNotification(m));
    if (answered.length === 0) return { kind: 'none' };
    const calls = answered.map((m) => {
      const rec = m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
      return { id: 'id' in rec && validId(rec.id) ? rec.id : null, method: typeof rec.method === 'string' ? rec.method : undefined };
    });
    // An answer names its call by id only where the id is unique in the batch (and not null).
    const methods = new Map<string, string>();
    for (const c of calls) {
      if (c.id !== null && c.method && calls.filter((d) => d.id === c.id).length === 1) methods.set(JSON.stringify(c.id), c.method);
    }
    return { kind: 'batch', ids: calls.map((c) => c.id), methods };
  }
  if (isNotification(message)) return { kind: 'none' };
  const rec = message && typeof message === 'object' ? (message as Record<string, unknown>) : {};
  return { kind: 'single', id: 'id' in rec && validId(rec.id) ? rec.id : null, method: typeof rec.method === 'string' ? rec.method : undefined };
}

/** JSON-RPC 2.0 §5: `jsonrpc: "2.0"`, an id, exactly one of result and error, an error with an integer code and a message. */
function envelopeViolations(res: JsonObject, error: JsonObject | undefined): Violation[] {
  const problems: string[] = [];
  if (res.jsonrpc !== '2.0') problems.push('jsonrpc is not "2.0"');
  if (!('id' in res)) problems.push('no id');
  if (('result' in res) === ('error' in res)) problems.push('not exactly one of result/error');
  if ('error' in res) {
    if (!error) problems.push('error is not an object');
    else {
      if (!Number.isInteger(error.code)) problems.push('error.code is not an integer');
      if (typeof error.message !== 'string') problems.push('error.message is not a string');
    }
  }
  return problems.length ? [{ kind: 'not a JSON-RPC 2.0 response', detail: problems.join('; ') }] : [];
}

/** The answer to a call the generator judged (by an id unique in the request): valid params are not refused, invalid ones not accepted. */
function verdictViolations(res: JsonObject, error: JsonObject | undefined, r: RpcRequest): Violation[] {
  const call = r.calls?.find((c) => c.id === res.id && res.id !== null);
  if (!call || r.calls!.filter((c) => c.id === call.id).length !== 1) return [];
  const code = error?.code;
  if (call.params === 'valid' && typeof code === 'number' && [-32600, -32601, -32602].includes(code)) {
    return [{ kind: 'valid call refused', detail: `${call.method}: ${code} ${String(error?.message).slice(0, 80)}` }];
  }
  if (call.params === 'invalid' && 'result' in res) return [{ kind: 'invalid params accepted', detail: `${r.case}: ${call.method}` }];
  return [];
}

/** One answer of a call (or of a batch's calls), held to JSON-RPC 2.0 and to what the generator knows of the call. */
function checkResponse(
  byName: Map<string, MethodModel>,
  response: unknown,
  allowedIds: unknown[],
  r: RpcRequest,
  methodOf: (id: unknown) => string | undefined,
): Violation[] {
  if (!isJsonObject(response)) return [{ kind: 'not a JSON-RPC 2.0 response', detail: `answer is ${JSON.stringify(response)?.slice(0, 40)}` }];
  const res = response;
  const error = isJsonObject(res.error) ? res.error : undefined;
  const out = envelopeViolations(res, error);
  if ('id' in res && res.id !== null && !allowedIds.some((id) => id === res.id)) {
    out.push({ kind: 'response id does not match the request', detail: `${JSON.stringify(res.id)} not in ${JSON.stringify(allowedIds).slice(0, 60)}` });
  }
  if (error?.code === -32603) {
    out.push({ kind: 'internal error (-32603)', detail: `${methodOf(res.id) ?? '?'}: ${JSON.stringify(error.data ?? error.message).slice(0, 100)}` });
  }
  out.push(...verdictViolations(res, error, r));
  const name = methodOf(res.id);
  const validate = name ? byName.get(name)?.validResult : undefined;
  if ('result' in res && validate && !validate(res.result)) {
    out.push({ kind: 'result does not match the OpenRPC result schema', detail: `${name}` });
  }
  return out;
}

export function createChainRpcOracle() {
  const { methods } = loadModel();
  const byName = new Map(methods.map((m) => [m.name, m]));

  return function oracle(r: RpcRequest, o: Observed): Violation[] {
    if (o.error) return [{ kind: 'no answer', detail: `${r.case}: ${o.error}` }];
    const out = leakViolations(o, () => bodyText(r.body, 64 * 1024) ?? '');
    const type = String(o.headers['content-type'] ?? '');
    if (o.status >= 500) out.push({ kind: 'HTTP 5xx', detail: `${o.status} for ${r.case}` });
    const isJson = isJsonType(type);
    if (r.plainHttp) {
      if (o.body !== '' && !isJson) out.push({ kind: 'answer is not JSON', detail: `${r.method} /chain-rpc${r.path}: ${o.status} ${type || '(no content-type)'}` });
      return out;
    }
    const expected = expectedFrom(r);
    if (expected.kind === 'none') {
      if (!(o.status === 204 || (o.status >= 200 && o.status < 300 && o.body === ''))) {
        out.push({ kind: 'notification answered (expected 204, no body)', detail: `${r.case}: ${o.status} ${o.body.slice(0, 60)}` });
      }
      return out;
    }
    if (!isJson) {
      out.push({ kind: 'answer is not JSON', detail: `${r.case}: ${o.status} ${type || '(no content-type)'}` });
      return out;
    }
    let answer: unknown;
    try {
      answer = JSON.parse(o.body);
    } catch {
      return [...out, { kind: 'answer is not JSON', detail: `${r.case}: unparsable body` }];
    }
    if (expected.kind === 'batch') {
      if (!Array.isArray(answer) || answer.length !== expected.ids.length) {
        out.push({ kind: 'batch answer has the wrong shape', detail: `${expected.ids.length} answers due, got ${Array.isArray(answer) ? answer.length : typeof answer}` });
        if (!Array.isArray(answer)) return [...out, ...checkResponse(byName, answer, [...expected.ids, null], r, () => undefined)];
      }
      for (const res of answer as unknown[]) out.push(...checkResponse(byName, res, expected.ids, r, (id) => expected.methods.get(JSON.stringify(id))));
      return out;
    }
    if (expected.kind === 'unknown') {
      // Too big to re-read here: hold each answer to the envelope rules only.
      for (const res of Array.isArray(answer) ? answer : [answer]) out.push(...checkResponse(byName, res, [(res as { id?: unknown })?.id], r, () => undefined));
      return out;
    }
    if (Array.isArray(answer)) return [...out, { kind: 'batch answer has the wrong shape', detail: `${r.case}: an array for a single request` }];
    out.push(...checkResponse(byName, answer, [expected.id], r, () => expected.method));
    return out;
  };
}

export function chainRpcTarget(sender: Sender): FuzzTarget<RpcRequest> {
  const oracle = createChainRpcOracle();
  return {
    arbitrary: chainRpcArbitrary(),
    caseOf: (r) => r.case,
    async execute(r) {
      const observed = await sender.send(CHAIN_RPC_BASE_PATH, r);
      const violations = oracle(r, observed);
      // Only a violation's request and answer are printed.
      return violations.length ? { violations, request: describeRequest(CHAIN_RPC_BASE_PATH, r), response: describeObserved(observed) } : { violations, request: '', response: '' };
    },
  };
}
