/**
 * A Stripe-size contract for the scale benchmark: deterministic, laid out like the house contracts
 * (one file per path, shared components, `$ref`s between files) and passing every house rule, so
 * the whole pipeline (lint included) runs on it as on a real service. 30 tags × 10 resources, each
 * resource a collection path and an item path with five methods each: 300 resources, 600 paths,
 * 3,000 operations by default.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

export interface LargeContractOptions {
  slug: string;
  /** resources per tag; 10 gives 3,000 operations over 600 paths */
  resourcesPerTag?: number;
  tags?: number;
  /**
   * Schema files a resource's `details` is split into, as vendors' split documents keep one small
   * schema a file (0 by default): more files per operation, as in real multi-file documents.
   */
  partsPerResource?: number;
}

export interface LargeContract {
  operations: number;
  paths: number;
  files: number;
}

const groupWords = [
  'billing', 'checkout', 'customers', 'identity', 'issuing', 'payments', 'payouts', 'radar', 'reporting', 'tax',
  'terminal', 'treasury', 'climate', 'connect', 'disputes', 'entitlements', 'financing', 'forwarding', 'invoicing', 'ledger',
  'marketplace', 'orders', 'pricing', 'products', 'quotes', 'refunds', 'shipping', 'sigma', 'subscriptions', 'transfers',
];
const resourceWords = ['account', 'balance', 'card', 'charge', 'coupon', 'event', 'file', 'mandate', 'meter', 'note', 'plan', 'reader', 'receipt', 'session', 'token'];
const statuses = [
  ['draft', 'open', 'paid', 'void'],
  ['pending', 'active', 'canceled'],
  ['requires_action', 'processing', 'succeeded', 'failed', 'expired'],
];
const currencies = ['usd', 'eur', 'gbp', 'jpy', 'chf'];

const pascal = (s: string) => s.split(/[^a-zA-Z0-9]+/).filter(Boolean).map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');

interface Resource {
  tag: string;
  /** `billing_account` */
  key: string;
  /** `BillingAccount` */
  name: string;
  /** `/billing/accounts` */
  collection: string;
  prefix: string;
  statuses: string[];
  /** the resource this one points at, for a `$ref` across resource schemas (the first of a tag points at none) */
  related?: string;
}

function resourcesOf(tags: number, perTag: number): Resource[] {
  const out: Resource[] = [];
  for (let t = 0; t < tags; t++) {
    const group = `${groupWords[t % groupWords.length]}${t >= groupWords.length ? Math.floor(t / groupWords.length) + 1 : ''}`;
    for (let r = 0; r < perTag; r++) {
      const word = `${resourceWords[r % resourceWords.length]}${r >= resourceWords.length ? Math.floor(r / resourceWords.length) + 1 : ''}`;
      const key = `${group}_${word}`;
      out.push({
        tag: pascal(group),
        key,
        name: pascal(key),
        collection: `/${group}/${word}s`,
        prefix: `${group.slice(0, 3)}${word.slice(0, 2)}`,
        statuses: statuses[(t + r) % statuses.length]!,
        ...(r > 0 && { related: out[out.length - r]!.name }),
      });
    }
  }
  return out;
}

const exampleId = (r: Resource, n = 1) => `${r.prefix}_${String(n).padStart(12, '0')}`;

function example(r: Resource, n = 1): Record<string, unknown> {
  return {
    id: exampleId(r, n),
    object: r.key,
    status: r.statuses[0],
    amount: { value: 1999 * n, currency: currencies[n % currencies.length] },
    address: { line1: '1 Example Street', city: 'Springfield', country: 'US', postalCode: '12345' },
    settings: { notifications: { email: true, webhook: false }, retries: 3, mode: 'automatic' },
    lines: [{ description: 'First line', quantity: 1, unitAmount: { value: 1999, currency: 'usd' } }],
    relatedId: null,
    metadata: { order: `A-${n}` },
    createdAt: '2026-01-01T00:00:00Z',
  };
}

const createExample = (_r: Resource) => ({ amount: { value: 1999, currency: 'usd' }, address: { line1: '1 Example Street', city: 'Springfield', country: 'US' }, metadata: { order: 'A-1' } });
const updateExample = (r: Resource) => ({ status: r.statuses[1], metadata: { order: 'A-2' } });

/** The resource schema: enums, nested objects, arrays of objects and `$ref`s to shared and sibling schemas. */
function resourceSchema(r: Resource) {
  return {
    title: r.name,
    type: 'object',
    description: `A ${r.key.replaceAll('_', ' ')}.`,
    additionalProperties: false,
    required: ['id', 'object', 'status', 'amount', 'createdAt'],
    properties: {
      id: { type: 'string', pattern: `^${r.prefix}_[0-9]{12}$`, description: 'Identifier.' },
      object: { type: 'string', const: r.key },
      status: { type: 'string', enum: r.statuses },
      amount: { $ref: 'Money.yaml' },
      address: { $ref: 'Address.yaml' },
      settings: {
        type: 'object',
        additionalProperties: false,
        properties: {
          notifications: {
            type: 'object',
            additionalProperties: false,
            properties: { email: { type: 'boolean' }, webhook: { type: 'boolean' } },
          },
          retries: { type: 'integer', minimum: 0, maximum: 10 },
          mode: { type: 'string', enum: ['automatic', 'manual'] },
        },
      },
      lines: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['description', 'quantity'],
          properties: {
            description: { type: 'string', maxLength: 500 },
            quantity: { type: 'integer', minimum: 1 },
            unitAmount: { $ref: 'Money.yaml' },
          },
        },
      },
      relatedId: { type: ['string', 'null'], description: 'The object this one belongs to.' },
      // Expanded on request, as large APIs do: a `$ref` to another resource's file. A chain of
      // hundreds would overflow the linter's stack, so each tag's resources point at its first.
      ...(r.related && { related: { $ref: `${r.related}.yaml` } }),
      metadata: { $ref: 'Metadata.yaml' },
      createdAt: { type: 'string', format: 'date-time' },
    },
    examples: [example(r)],
  };
}

const sharedSchemas = {
  Money: {
    title: 'Money',
    type: 'object',
    additionalProperties: false,
    required: ['value', 'currency'],
    properties: { value: { type: 'integer', minimum: 0 }, currency: { type: 'string', enum: currencies } },
  },
  Address: {
    title: 'Address',
    type: 'object',
    additionalProperties: false,
    required: ['line1', 'country'],
    properties: {
      line1: { type: 'string', maxLength: 200 },
      line2: { type: 'string', maxLength: 200 },
      city: { type: 'string', maxLength: 100 },
      country: { type: 'string', pattern: '^[A-Z]{2}$' },
      postalCode: { type: 'string', maxLength: 20 },
    },
  },
  Metadata: {
    title: 'Metadata',
    type: 'object',
    description: 'Up to 50 keys of your own.',
    maxProperties: 50,
    additionalProperties: { type: 'string', maxLength: 500 },
  },
  Error: {
    title: 'Error',
    type: 'object',
    description: 'Every error: `{error, code}`.',
    additionalProperties: false,
    required: ['error', 'code'],
    properties: {
      error: { type: 'string' },
      code: { type: 'string', enum: ['VALIDATION_ERROR', 'UNAUTHENTICATED', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'RATE_LIMITED', 'INTERNAL_ERROR'] },
    },
  },
};

function errorResponse(code: string, description: string, exampleName: string, message: string, headers?: object) {
  return {
    description,
    ...(headers && { headers }),
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: '../schemas/Error.yaml' }, { type: 'object', properties: { code: { const: code } } }] },
        examples: { [exampleName]: { summary: description, value: { error: message, code } } },
      },
    },
  };
}

const sharedResponses = {
  ValidationError: errorResponse('VALIDATION_ERROR', 'The request is invalid.', 'invalid', 'amount is required'),
  Unauthenticated: errorResponse('UNAUTHENTICATED', 'The bearer key is missing or invalid.', 'missingKey', 'Missing or invalid Authorization header'),
  NotFound: errorResponse('NOT_FOUND', 'No such resource.', 'notFound', 'Not found'),
  RateLimited: errorResponse('RATE_LIMITED', 'Too many requests; retry after Retry-After seconds.', 'rateLimited', 'Rate limit exceeded', {
    'Retry-After': { $ref: '../headers/RetryAfter.yaml' },
  }),
  InternalError: errorResponse('INTERNAL_ERROR', 'An unexpected error.', 'internal', 'Internal error'),
};

const ref = (file: string) => ({ $ref: file });
const errors = (...names: Array<[string, keyof typeof sharedResponses]>) =>
  Object.fromEntries(names.map(([status, name]) => [status, ref(`../components/responses/${name}.yaml`)]));
const json = (schema: object, examples: Record<string, unknown>) => ({
  'application/json': { schema, examples: Object.fromEntries(Object.entries(examples).map(([k, value]) => [k, { summary: k, value }])) },
});
// Generous: the flatness of a benchmark must not hinge on a window.
const writeLimit = { requests: 1000, windowSeconds: 1 };

function collectionPath(r: Resource) {
  const schema = ref(`../components/schemas/${r.name}.yaml`);
  const list = { type: 'object', additionalProperties: false, required: ['data', 'hasMore'], properties: { data: { type: 'array', items: schema }, hasMore: { type: 'boolean' } } };
  const input = ref(`../components/schemas/${r.name}Input.yaml`);
  const base = (id: string, summary: string) => ({ operationId: id, tags: [r.tag], summary, description: `${summary}.` });
  return {
    get: {
      ...base(`list${r.name}s`, `List ${r.key} objects`),
      parameters: [ref('../components/parameters/Limit.yaml'), ref('../components/parameters/Cursor.yaml'), { name: 'status', in: 'query', schema: { type: 'string', enum: r.statuses } }],
      responses: { '200': { description: 'A page.', content: json(list, { page: { data: [example(r)], hasMore: false } }) }, ...errors(['400', 'ValidationError'], ['401', 'Unauthenticated'], ['500', 'InternalError']) },
    },
    post: {
      ...base(`create${r.name}`, `Create a ${r.key}`),
      'x-rate-limit': writeLimit,
      requestBody: { required: true, content: json(input, { minimal: createExample(r) }) },
      responses: { '201': { description: 'Created.', content: json(schema, { created: example(r) }) }, ...errors(['400', 'ValidationError'], ['401', 'Unauthenticated'], ['429', 'RateLimited'], ['500', 'InternalError']) },
    },
    put: {
      ...base(`upsert${r.name}s`, `Create or replace ${r.key} objects in bulk`),
      requestBody: { required: true, content: json({ type: 'object', required: ['items'], properties: { items: { type: 'array', maxItems: 100, items: input } } }, { two: { items: [createExample(r), createExample(r)] } }) },
      responses: { '200': { description: 'The stored objects.', content: json(list, { stored: { data: [example(r), example(r, 2)], hasMore: false } }) }, ...errors(['400', 'ValidationError'], ['401', 'Unauthenticated'], ['500', 'InternalError']) },
    },
    patch: {
      ...base(`bulkUpdate${r.name}s`, `Update ${r.key} objects in bulk`),
      requestBody: {
        required: true,
        content: json({ type: 'object', required: ['ids', 'set'], properties: { ids: { type: 'array', maxItems: 100, items: { type: 'string' } }, set: ref(`../components/schemas/${r.name}Update.yaml`) } }, { one: { ids: [exampleId(r)], set: updateExample(r) } }),
      },
      responses: { '200': { description: 'How many were updated.', content: json({ type: 'object', required: ['updated'], properties: { updated: { type: 'integer' } } }, { one: { updated: 1 } }) }, ...errors(['400', 'ValidationError'], ['401', 'Unauthenticated'], ['500', 'InternalError']) },
    },
    delete: {
      ...base(`deleteAll${r.name}s`, `Delete the ${r.key} objects of a status`),
      parameters: [{ name: 'status', in: 'query', required: true, schema: { type: 'string', enum: r.statuses }, example: r.statuses[0] }],
      responses: { '200': { description: 'How many were deleted.', content: json({ type: 'object', required: ['deleted'], properties: { deleted: { type: 'integer' } } }, { none: { deleted: 0 } }) }, ...errors(['400', 'ValidationError'], ['401', 'Unauthenticated'], ['500', 'InternalError']) },
    },
  };
}

function itemPath(r: Resource) {
  const schema = ref(`../components/schemas/${r.name}.yaml`);
  const base = (id: string, summary: string) => ({ operationId: id, tags: [r.tag], summary, description: `${summary}.` });
  const found = errors(['400', 'ValidationError'], ['401', 'Unauthenticated'], ['404', 'NotFound'], ['500', 'InternalError']);
  return {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: `^${r.prefix}_[0-9]{12}$` }, example: exampleId(r) }],
    get: { ...base(`get${r.name}`, `Get a ${r.key}`), responses: { '200': { description: 'The object.', content: json(schema, { found: example(r) }) }, ...found } },
    put: {
      ...base(`replace${r.name}`, `Replace a ${r.key}`),
      requestBody: { required: true, content: json(ref(`../components/schemas/${r.name}Input.yaml`), { minimal: createExample(r) }) },
      responses: { '200': { description: 'The object.', content: json(schema, { replaced: example(r) }) }, ...found },
    },
    patch: {
      ...base(`update${r.name}`, `Update a ${r.key}`),
      'x-rate-limit': writeLimit,
      requestBody: { required: true, content: json(ref(`../components/schemas/${r.name}Update.yaml`), { status: updateExample(r) }) },
      responses: { '200': { description: 'The object.', content: json(schema, { updated: { ...example(r), status: r.statuses[1] } }) }, ...found, ...errors(['429', 'RateLimited']) },
    },
    delete: {
      ...base(`delete${r.name}`, `Delete a ${r.key}`),
      responses: { '200': { description: 'Deleted.', content: json({ type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } }, { deleted: { id: exampleId(r), deleted: true } }) }, ...found },
    },
    post: {
      ...base(`archive${r.name}`, `Archive a ${r.key}`),
      requestBody: { required: true, content: json({ type: 'object', additionalProperties: false, properties: { reason: { type: 'string', enum: ['duplicate', 'fraudulent', 'requested'] } } }, { requested: { reason: 'requested' } }) },
      responses: { '200': { description: 'The archived object.', content: json(schema, { archived: example(r) }) }, ...found },
    },
  };
}

function inputSchema(r: Resource) {
  return {
    title: `${r.name}Input`,
    type: 'object',
    additionalProperties: false,
    required: ['amount'],
    properties: { amount: ref('Money.yaml'), address: ref('Address.yaml'), lines: { type: 'array', maxItems: 100, items: { type: 'object', required: ['description', 'quantity'], properties: { description: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } } } }, metadata: ref('Metadata.yaml') },
  };
}

function updateSchema(r: Resource) {
  return { title: `${r.name}Update`, type: 'object', additionalProperties: false, minProperties: 1, properties: { status: { type: 'string', enum: r.statuses }, address: ref('Address.yaml'), metadata: ref('Metadata.yaml') } };
}

/** Writes openapi/<slug>/ under `root`; returns its size. */
export function writeLargeContract(root: string, options: LargeContractOptions): LargeContract {
  const dir = path.join(root, 'openapi', options.slug);
  const resources = resourcesOf(options.tags ?? 30, options.resourcesPerTag ?? 10);
  let files = 0;
  const put = (rel: string, value: unknown) => {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, stringify(value, { lineWidth: 0, aliasDuplicateObjects: false }));
    files++;
  };
  const fileOf = (p: string) => `${p.slice(1).replaceAll('/', '_')}.yaml`;
  const paths: Record<string, unknown> = {};
  const parts = options.partsPerResource ?? 0;
  for (const r of resources) {
    const schema = resourceSchema(r);
    if (parts > 0) {
      const names = Array.from({ length: parts }, (_, i) => `${r.name}Part${i}`);
      (schema.properties as Record<string, unknown>).details = {
        type: 'object',
        description: 'Details, one schema file a part.',
        additionalProperties: false,
        properties: Object.fromEntries(names.map((name, i) => [`part${i}`, { $ref: `${name}.yaml` }])),
      };
      for (const name of names) {
        put(`components/schemas/${name}.yaml`, {
          type: 'object',
          description: `One part of a ${r.key.replaceAll('_', ' ')}'s details.`,
          additionalProperties: false,
          properties: { label: { type: 'string', maxLength: 100 }, count: { type: 'integer', minimum: 0 }, enabled: { type: 'boolean' } },
        });
      }
    }
    put(`components/schemas/${r.name}.yaml`, schema);
    put(`components/schemas/${r.name}Input.yaml`, inputSchema(r));
    put(`components/schemas/${r.name}Update.yaml`, updateSchema(r));
    put(`paths/${fileOf(r.collection)}`, collectionPath(r));
    put(`paths/${fileOf(`${r.collection}/{id}`)}`, itemPath(r));
    paths[r.collection] = ref(`paths/${fileOf(r.collection)}`);
    paths[`${r.collection}/{id}`] = ref(`paths/${fileOf(`${r.collection}/{id}`)}`);
  }
  for (const [name, schema] of Object.entries(sharedSchemas)) put(`components/schemas/${name}.yaml`, schema);
  for (const [name, response] of Object.entries(sharedResponses)) put(`components/responses/${name}.yaml`, response);
  put('components/headers/RetryAfter.yaml', { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0, examples: [1] } });
  put('components/parameters/Limit.yaml', { name: 'limit', in: 'query', description: 'Page size.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } });
  put('components/parameters/Cursor.yaml', { name: 'cursor', in: 'query', description: 'Where the page starts.', schema: { type: 'string', maxLength: 200 } });
  const tags = [...new Set(resources.map((r) => r.tag))];
  put('openapi.yaml', {
    openapi: '3.1.0',
    info: { title: 'Large API', version: '1.0.0', description: `A generated contract of ${resources.length * 10} operations for the scale benchmark.` },
    servers: [{ url: `http://localhost:4000/${options.slug}`, description: 'Reference stubs' }],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: `The ${name} resources.` })),
    paths,
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <API_KEY>`.' } } },
  });
  return { operations: resources.length * 10, paths: resources.length * 2, files };
}
