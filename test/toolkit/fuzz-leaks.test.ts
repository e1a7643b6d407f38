/**
 * The fuzz oracle's leak patterns (G-2): what a server must never put in an answer is found, in a
 * JSON string or an HTML page, and a value the request itself carried is not held against it.
 */
import { describe, expect, test } from 'vitest';
import { leakViolations } from '../../scripts/lib/fuzz/oracle.js';
import type { Observed } from '../../scripts/lib/fuzz/wire.js';

const answer = (body: string, type = 'application/json'): Observed => ({ status: 400, headers: { 'content-type': type }, body, ms: 1 });
const PATTERNS = ['stack frame', 'server path /work/', 'node_modules path', 'source position .ts', 'Error: with a stack'];
/** The names of the patterns an answer's body matched (a detail starts with its pattern's name). */
const kinds = (body: string, request = '') =>
  leakViolations(answer(body), request).map((v) => PATTERNS.find((name) => v.detail.startsWith(name)) ?? v.detail);

describe('leakViolations', () => {
  test.each([
    ['a stack in a JSON string', JSON.stringify({ error: 'TypeError: x is undefined\n    at handler (/srv/app/dist/index.js:10:5)' }), 'stack frame'],
    ['an escaped stack (\\n in the JSON text)', '{"error":"RangeError: too deep\\n    at walk (/srv/app/walk.js:3:9)"}', 'stack frame'],
    ['an HTML stack after <br>', 'SyntaxError: Unexpected token<br> &nbsp; &nbsp;at parse (native)', 'Error: with a stack'],
    ['a path under /work/', '{"error":"cannot open /work/app/x"}', 'server path /work/'],
    ['a node_modules path', '{"error":"in node_modules/express"}', 'node_modules path'],
    ['a source position', '{"error":"app.ts:42 failed"}', 'source position .ts'],
  ])('%s is a leak', (_what, body, kind) => {
    expect(kinds(body)).toContain(kind);
  });

  test('HTML is a leak of its own kind', () => {
    expect(leakViolations(answer('<!doctype html><p>Bad request</p>', 'text/html'), '').map((v) => v.kind)).toEqual(['HTML body']);
  });

  test('a plain error body is none', () => {
    expect(kinds(JSON.stringify({ error: 'Validation failed: name is required', code: 'VALIDATION_ERROR' }))).toEqual([]);
  });

  test('what the request carried and the answer echoes is not held against the server', () => {
    const echoed = 'TypeError: boom\n at ';
    expect(kinds(JSON.stringify({ error: `unknown name ${echoed}` }).replace('\\n', '\n'), echoed)).toEqual([]);
    expect(kinds(JSON.stringify({ error: `unknown name ${echoed}` }).replace('\\n', '\n'), '')).toEqual(['Error: with a stack']);
  });

  test('the request is written out only to tell an echo from a leak', () => {
    const unwritten = () => {
      throw new Error('the request was written out for an answer that matched no pattern');
    };
    expect(leakViolations(answer(JSON.stringify({ error: 'Validation failed' })), unwritten)).toEqual([]);
    const echoed = 'TypeError: boom\n at ';
    const body = JSON.stringify({ error: `unknown name ${echoed}` }).replace('\\n', '\n');
    expect(leakViolations(answer(body), () => echoed)).toEqual([]);
    expect(leakViolations(answer(body), () => '').map((v) => v.kind)).toEqual(['stack trace or file path in body']);
  });

  test('a body of megabytes without a leak is none', () => {
    expect(kinds(JSON.stringify({ items: 'Error: '.repeat(200_000) }))).toEqual([]);
  });
});
