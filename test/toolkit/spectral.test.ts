/**
 * An independent linter agrees: `npm run check` fails on any error of Spectral's `oas` ruleset
 * (`.spectral.yaml`) in a bundle. This proves the lint can fail: a stream example that is text
 * while its schema is a frame object, as seo's once was.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { lintWithSpectral } from '../../scripts/steps/spectral.js';

test('.spectral.yaml extends spectral:oas', () => {
  const ruleset = parse(readFileSync(path.join(defaultRoot, '.spectral.yaml'), 'utf8'));
  expect([ruleset.extends].flat()).toContain('spectral:oas');
});

test('an example off its schema is a Spectral error', { timeout: 60_000 }, async () => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'Broken', version: '1.0.0', description: 'A fixture.', contact: { name: 'x' } },
    servers: [{ url: 'http://localhost/x' }],
    tags: [{ name: 'T', description: 'T' }],
    paths: {
      '/stream': {
        get: {
          operationId: 'stream',
          tags: ['T'],
          summary: 's',
          description: 'd',
          responses: {
            200: {
              description: 'frames',
              content: { 'text/event-stream': { schema: { type: 'object', required: ['data'] }, examples: { wire: { value: 'data: {}\n\n' } } } },
            },
          },
        },
      },
    },
  };
  const problems = await lintWithSpectral(document, { root: defaultRoot });
  expect(problems.filter((p) => p.severity === 'error').map((p) => p.code)).toContain('oas3-valid-media-example');
});

test('a security requirement: role names of a bearer scheme pass (3.1); an undeclared OAuth scope or scheme is an error', { timeout: 60_000 }, async () => {
  const operation = (security: unknown) => ({ operationId: 'op', tags: ['T'], summary: 's', description: 'd', security, responses: { 204: { description: 'done' } } });
  const document = {
    openapi: '3.1.0',
    info: { title: 'Secured', version: '1.0.0', description: 'A fixture.', contact: { name: 'x' } },
    servers: [{ url: 'http://localhost/x' }],
    tags: [{ name: 'T', description: 'T' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { 'items:read': 'read' } } } },
      },
    },
    paths: {
      '/roles': { get: operation([{ bearer: ['leads:read'] }]) },
      '/scoped': { get: { ...operation([{ oauth: ['items:read', 'items:write'] }]), operationId: 'scoped' } },
      '/nobody': { get: { ...operation([{ nobody: [] }]), operationId: 'nobody' } },
    },
  };
  const problems = (await lintWithSpectral(document, { root: defaultRoot })).filter((p) => /security/.test(p.code));
  expect(problems.map((p) => [p.severity, p.path, p.message])).toEqual([
    ['error', '/paths/~1scoped/get/security/0/oauth/1', `"items:write" must be listed among the scopes of "oauth"'s flows.`],
    ['error', '/paths/~1nobody/get/security/0/nobody', '"nobody" is not a security scheme of components.securitySchemes.'],
  ]);
});

test('examples of equal schemas are each judged: a validator shared by content still finds the one off its schema', { timeout: 60_000 }, async () => {
  // The same schema, written out in each response: Spectral checks each example against its own copy.
  const widget = () => ({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } });
  const response = (example: unknown) => ({ description: 'a widget', content: { 'application/json': { schema: widget(), example } } });
  const operation = (operationId: string, example: unknown) => ({ operationId, tags: ['T'], summary: 's', description: 'd', responses: { 200: response(example) } });
  const document = {
    openapi: '3.1.0',
    info: { title: 'Widgets', version: '1.0.0', description: 'A fixture.', contact: { name: 'x' } },
    servers: [{ url: 'http://localhost/x' }],
    tags: [{ name: 'T', description: 'T' }],
    paths: {
      '/a': { get: operation('a', { id: 'w1' }) },
      '/b': { get: operation('b', { id: 2 }) },
      '/c': { get: operation('c', { id: 'w3' }) },
      '/d': { get: operation('d', {}) },
    },
  };
  const problems = (await lintWithSpectral(document, { root: defaultRoot })).filter((p) => p.code === 'oas3-valid-media-example');
  expect(problems.map((p) => p.path.split('/')[2])).toEqual(['~1b', '~1d']);
});
