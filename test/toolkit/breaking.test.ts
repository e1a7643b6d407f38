/** The breaking-change list the build prints: each kind of break is found, and nothing else is. */
import { describe, expect, test } from 'vitest';
import { breakingChanges, schemaBreakingChanges } from '../../scripts/lib/breaking.js';
import type { OpenAPI3 } from 'openapi-typescript';
import { valueAt } from '../../server-stubs/lib/openapi/document.js';
import { isJsonObject, type JsonObject, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';
import { asDocument } from '../helpers/fixture-document.js';

/**
 * What oasdiff does not compare, compared by ours: webhook payloads and SSE frames are read by
 * the client (a subscriber, a stream reader), so a removed field, a field no longer always present,
 * a new enum value, a looser bound or another type breaks them, and a newly required field or a
 * narrower enum does not. A standalone schema may be sent as well as read: both count.
 */
/** The JSON object at a pointer of a fixture, to change in place. */
function objectAt(fixture: object, ...tokens: string[]): JsonObject {
  const node = valueAt(fixture, tokens);
  if (!isJsonObject(node)) throw new Error(`the fixture has no object at /${tokens.join('/')}`);
  return node;
}

/** The list at a pointer of a fixture, to change in place. */
function listAt(fixture: object, ...tokens: string[]): unknown[] {
  const node = valueAt(fixture, tokens);
  if (!Array.isArray(node)) throw new Error(`the fixture has no list at /${tokens.join('/')}`);
  return node;
}

const frame = (event: string, data: SchemaNode) => ({
  type: 'object',
  additionalProperties: false,
  required: ['event', 'data'],
  properties: { event: { type: 'string', const: event }, data },
});
const streamsAndHooks = () => asDocument({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/jobs/{id}/events': {
      get: {
        operationId: 'jobEvents',
        responses: {
          '200': { description: 'frames', content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/JobFrame' } } } },
        },
      },
    },
  },
  webhooks: {
    'job.finished': {
      post: {
        operationId: 'jobFinished',
        parameters: [{ name: 'X-Event', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JobFinished' } } } },
        responses: { '2XX': { description: 'ok' } },
      },
    },
  },
  components: {
    schemas: {
      JobFrame: {
        oneOf: [{ $ref: '#/components/schemas/ProgressFrame' }, { $ref: '#/components/schemas/DoneFrame' }],
        discriminator: { propertyName: 'event', mapping: { progress: '#/components/schemas/ProgressFrame', done: '#/components/schemas/DoneFrame' } },
      },
      ProgressFrame: frame('progress', {
        type: 'object',
        required: ['percent', 'state'],
        properties: { percent: { type: 'integer', minimum: 0, maximum: 100 }, state: { type: 'string', enum: ['queued', 'running'] }, note: { type: 'string' } },
      }),
      DoneFrame: frame('done', { type: 'object', required: ['pages'], properties: { pages: { type: 'integer' } } }),
      JobFinished: {
        type: 'object',
        required: ['id', 'outcome'],
        properties: {
          id: { type: 'string', maxLength: 36 },
          outcome: { type: 'string', enum: ['ok', 'failed'] },
          pages: { type: 'integer' },
          comment: { type: 'string' },
        },
      },
    },
  },
});

const changed = (mutate: (doc: OpenAPI3) => void) => {
  const before = streamsAndHooks();
  const after = streamsAndHooks();
  mutate(after);
  return breakingChanges(before, after);
};

describe('breaking changes in webhook payloads (read by subscribers)', () => {
  const JOB_FINISHED = ['components', 'schemas', 'JobFinished'];
  const payload = (doc: OpenAPI3, ...at: string[]) => objectAt(doc, ...JOB_FINISHED, ...at);
  test('an unchanged contract has none', () => expect(changed(() => {})).toEqual([]));
  const payloadSchema = (d: OpenAPI3) => objectAt(d, 'webhooks', 'job.finished', 'post', 'requestBody', 'content', 'application/json');
  test('wrapping the payload schema in allOf to add a rule is not breaking', () => {
    expect(changed((d) => void (payloadSchema(d).schema = { allOf: [{ $ref: '#/components/schemas/JobFinished' }, { type: 'object', required: ['pages'] }] }))).toEqual([]);
  });
  test('a field removed inside an allOf member is found', () => {
    const change = changed((d) => {
      const member = structuredClone(payload(d));
      delete objectAt(member, 'properties').outcome;
      member.required = ['id'];
      payloadSchema(d).schema = { allOf: [member, { type: 'object' }] };
    });
    expect(change).toContainEqual({ where: 'webhook job.finished', change: 'payload outcome was removed (it was required)' });
  });
  test.each([
    ['a removed required field', (d: OpenAPI3): void => void delete payload(d, 'properties').outcome, 'payload outcome was removed (it was required)'],
    ['a removed optional field', (d: OpenAPI3): void => void delete payload(d, 'properties').comment, 'payload comment was removed'],
    ['a field no longer required', (d: OpenAPI3): void => void (payload(d).required = ['id']), 'payload outcome is no longer always present'],
    ['a new enum value', (d: OpenAPI3): void => void listAt(d, ...JOB_FINISHED, 'properties', 'outcome', 'enum').push('cancelled'), 'payload outcome may now be "cancelled"'],
    ['a looser bound', (d: OpenAPI3): void => void (payload(d, 'properties', 'id').maxLength = 64), 'payload id maxLength loosened to 64'],
    ['a changed type', (d: OpenAPI3): void => void (payload(d, 'properties', 'pages').type = 'string'), 'payload pages type integer became string'],
    ['a header no longer sent', (d: OpenAPI3): void => void (objectAt(d, 'webhooks', 'job.finished', 'post').parameters = []), 'header X-Event is no longer sent'],
    ['a removed event', (d: OpenAPI3): void => void delete objectAt(d, 'webhooks')['job.finished'], 'event removed'],
  ] as const)('finds %s', (_name, mutate, change) => {
    expect(changed(mutate)).toContainEqual({ where: 'webhook job.finished', change });
  });
  test.each([
    ['a newly required field', (d: OpenAPI3): void => void listAt(d, ...JOB_FINISHED, 'required').push('pages')],
    ['a narrower enum', (d: OpenAPI3): void => void (payload(d, 'properties', 'outcome').enum = ['ok'])],
    ['a tighter bound', (d: OpenAPI3): void => void (payload(d, 'properties', 'id').maxLength = 20)],
    ['a new optional field', (d: OpenAPI3): void => void (payload(d, 'properties').extra = { type: 'string' })],
  ] as const)('does not flag %s (subscribers only read the payload)', (_name, mutate) => {
    expect(changed(mutate)).toEqual([]);
  });
});

describe('breaking changes in SSE frames (a oneOf frame union, read by the client)', () => {
  const PROGRESS_DATA = ['components', 'schemas', 'ProgressFrame', 'properties', 'data'];
  const progress = (doc: OpenAPI3, ...at: string[]) => objectAt(doc, ...PROGRESS_DATA, ...at);
  const where = 'GET /jobs/{id}/events';
  test.each([
    ['a removed frame field', (d: OpenAPI3): void => void delete progress(d, 'properties').note, 'response 200 stream (jobEvents): frame progress.data.note was removed'],
    ['a required frame field removed', (d: OpenAPI3) => {
      delete progress(d, 'properties').state;
      progress(d).required = ['percent'];
    }, 'response 200 stream (jobEvents): frame progress.data.state was removed (it was required)'],
    ['a required field removed from a frame\'s shared schema', (d: OpenAPI3) => {
      objectAt(d, 'components', 'schemas', 'DoneFrame', 'properties').data = { $ref: '#/components/schemas/Summary' };
      objectAt(d, 'components', 'schemas').Summary = { type: 'object', required: [], properties: {} };
    }, 'response 200 stream (jobEvents): frame done.data.pages was removed (it was required)'],
    ['a frame field no longer required', (d: OpenAPI3): void => void (progress(d).required = ['percent']), 'response 200 stream (jobEvents): frame progress.data.state is no longer always present'],
    ['a new enum value in a frame', (d: OpenAPI3): void => void listAt(d, ...PROGRESS_DATA, 'properties', 'state', 'enum').push('paused'), 'response 200 stream (jobEvents): frame progress.data.state may now be "paused"'],
    ['a looser bound in a frame', (d: OpenAPI3): void => void (progress(d, 'properties', 'percent').maximum = 1000), 'response 200 stream (jobEvents): frame progress.data.percent maximum loosened to 1000'],
    ['a changed type in a frame', (d: OpenAPI3): void => void (progress(d, 'properties', 'percent').type = 'string'), 'response 200 stream (jobEvents): frame progress.data.percent type integer became string'],
    ['a frame no longer sent', (d: OpenAPI3) => {
      listAt(d, 'components', 'schemas', 'JobFrame', 'oneOf').pop();
      delete objectAt(d, 'components', 'schemas', 'JobFrame', 'discriminator', 'mapping').done;
    }, 'response 200 stream (jobEvents): frame done is no longer sent'],
    ['a new frame', (d: OpenAPI3) => {
      objectAt(d, 'components', 'schemas').FailedFrame = frame('failed', { type: 'object' });
      listAt(d, 'components', 'schemas', 'JobFrame', 'oneOf').push({ $ref: '#/components/schemas/FailedFrame' });
    }, 'response 200 stream (jobEvents): frame failed may now be sent'],
  ] as const)('finds %s', (_name, mutate, change) => {
    expect(changed(mutate)).toContainEqual({ where, change });
  });
  test.each([
    ['a newly required frame field', (d: OpenAPI3): void => void listAt(d, ...PROGRESS_DATA, 'required').push('note')],
    ['a narrower enum in a frame', (d: OpenAPI3): void => void (progress(d, 'properties', 'state').enum = ['running'])],
    ['a tighter bound in a frame', (d: OpenAPI3): void => void (progress(d, 'properties', 'percent').maximum = 99)],
  ] as const)('does not flag %s (the client only reads frames)', (_name, mutate) => {
    expect(changed(mutate)).toEqual([]);
  });
  test('frames told apart inside their data (`data.type`, no event line): a kind no longer sent, a new one, a required field removed, named with the operation', () => {
    const typed = (mutate: (d: OpenAPI3) => void) => {
      const doc = () => {
        const d = streamsAndHooks();
        objectAt(d, 'components', 'schemas').JobFrame = {
          type: 'object',
          required: ['data'],
          properties: {
            data: {
              oneOf: [
                { type: 'object', required: ['type', 'text'], properties: { type: { const: 'content' }, text: { type: 'string' } } },
                { type: 'object', required: ['type'], properties: { type: { const: 'done' } } },
              ],
              discriminator: { propertyName: 'type' },
            },
          },
        };
        return d;
      };
      const after = doc();
      mutate(after);
      return breakingChanges(doc(), after);
    };
    const DATA_ONE_OF = ['components', 'schemas', 'JobFrame', 'properties', 'data', 'oneOf'];
    const members = (d: OpenAPI3) => listAt(d, ...DATA_ONE_OF);
    expect(typed(() => {})).toEqual([]);
    expect(typed((d) => void members(d).pop())).toEqual([{ where, change: 'response 200 stream (jobEvents): frame done is no longer sent' }]);
    expect(typed((d) => void members(d).push({ type: 'object', required: ['type'], properties: { type: { const: 'error' } } }))).toEqual([{ where, change: 'response 200 stream (jobEvents): frame error may now be sent' }]);
    expect(
      typed((d) => {
        objectAt(d, ...DATA_ONE_OF, '0').required = ['type'];
        delete objectAt(d, ...DATA_ONE_OF, '0', 'properties').text;
      }),
    ).toEqual([{ where, change: 'response 200 stream (jobEvents): frame content.data.text was removed (it was required)' }]);
  });

  test('paths are left to oasdiff: a newly required parameter is not ours to find, a stream frame change is', () => {
    const mutate = (d: OpenAPI3) => {
      objectAt(d, 'paths', '/jobs/{id}/events', 'get').parameters = [{ name: 'since', in: 'query', required: true, schema: { type: 'string' } }];
      delete progress(d, 'properties').note;
    };
    expect(changed(mutate)).toEqual([{ where, change: 'response 200 stream (jobEvents): frame progress.data.note was removed' }]);
  });
});

describe('breaking changes in a standalone schema (sent and read: both sides count)', () => {
  const thing = (): SchemaNode => ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['id', 'kind'],
    properties: {
      id: { $ref: 'Hash.json' },
      kind: { type: 'string', enum: ['a', 'b'] },
      size: { type: 'integer', minimum: 0, maximum: 10 },
      label: { type: 'string' },
      parts: { type: 'array', items: { $ref: '#/$defs/Part' } },
    },
    $defs: { Part: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } },
  });
  const compare = (mutate: (s: SchemaNode) => void) => {
    const after = thing();
    mutate(after);
    return schemaBreakingChanges('Thing.json', thing(), after);
  };
  test('an unchanged schema has none, a new optional field neither', () => {
    expect(compare(() => {})).toEqual([]);
    expect(compare((s) => void (objectAt(s, 'properties').extra = { type: 'string' }))).toEqual([]);
  });
  test.each([
    ['a removed field', (s: SchemaNode): void => void delete objectAt(s, 'properties').label, 'label was removed'],
    ['a newly required field', (s: SchemaNode): void => void listAt(s, 'required').push('size'), 'size is now required'],
    ['a narrower enum', (s: SchemaNode): void => void (objectAt(s, 'properties', 'kind').enum = ['a']), 'kind no longer accepts "b"'],
    ['a wider enum', (s: SchemaNode): void => void listAt(s, 'properties', 'kind', 'enum').push('c'), 'kind may now be "c"'],
    ['a tighter bound', (s: SchemaNode): void => void (objectAt(s, 'properties', 'size').maximum = 5), 'size maximum tightened to 5'],
    ['a changed type', (s: SchemaNode): void => void (objectAt(s, 'properties', 'size').type = 'string'), 'size type integer became string'],
    ['a changed type inside $defs', (s: SchemaNode): void => void (objectAt(s, '$defs', 'Part', 'properties', 'n').type = 'string'), 'parts[].n type integer became string'],
    ['a reference to another file', (s: SchemaNode): void => void (objectAt(s, 'properties').id = { $ref: 'Address.json' }), 'id now refers to Address.json instead of Hash.json'],
  ] as const)('finds %s', (_name, mutate, change) => {
    expect(compare(mutate)).toContainEqual({ where: 'schema Thing.json', change });
  });
  test('a removed file is a removed schema; a new one has nothing to compare', () => {
    expect(schemaBreakingChanges('Thing.json', thing(), undefined)).toEqual([{ where: 'schema Thing.json', change: 'schema removed' }]);
    expect(schemaBreakingChanges('Thing.json', undefined, thing())).toEqual([]);
  });
});
