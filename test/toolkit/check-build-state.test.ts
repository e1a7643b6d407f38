/**
 * `npm run check` proves generated/ is what a fresh build makes; when it is, the check records the
 * build state that build would have written, so the first `npm run build` (or `npm start`) of a
 * fresh clone skips every unit instead of building them all again. Never a state that lets a
 * stale unit be skipped: a contract edited after the check is rebuilt, and a check that finds
 * drift records nothing.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { check } from '../../scripts/check.js';
import { build } from '../../scripts/lib/pipeline.js';
import { copyToolkit, type ProjectCopy } from '../helpers/project-copy.js';

let copy: ProjectCopy;
let root: string;
const stateFile = () => path.join(root, '.cache', 'build-state.json');
const contract = () => path.join(root, 'openapi/dev/paths/v1_search.yaml');

beforeAll(() => {
  // A fresh clone's footing: the sources and the committed generated/, no .cache/.
  copy = copyToolkit({ services: ['dev'] });
  root = copy.root;
});
afterAll(() => copy?.remove());

// Whole checks and builds of a copy: seconds on a quiet machine, minutes on a busy one.
describe('the build state a clean check records', { timeout: 600_000 }, () => {
  test('after a clean check, the first build skips every unit and writes only the pages of the docs', async () => {
    expect(existsSync(stateFile())).toBe(false);
    const { ok, messages } = await check(root);
    expect(messages).toEqual([]);
    expect(ok).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(stateFile(), 'utf8'))).sort()).toEqual(['api:dev', 'schemas:dev']);
    const lines: string[] = [];
    const result = await build({ root, log: (l) => lines.push(l) });
    expect(result.failures).toEqual([]);
    expect(result.rebuilt).toEqual([]);
    expect(lines.filter((l) => /^skip\s/.test(l)).map((l) => l.split(/\s+/)[1]).sort()).toEqual(['dev', 'dev']);
    // The HTML docs are not committed, so the check could not vouch for them: made from the bundle.
    expect(lines.some((l) => /^docs\s+dev\s+\d+ ms/.test(l))).toBe(true);
    expect(readFileSync(path.join(root, 'generated/docs/dev.html'), 'utf8')).toContain('generated/dev/openapi.json');
    expect((await build({ root })).rebuilt).toEqual([]);
  });

  test('a contract edited after the check is rebuilt, and only its unit', async () => {
    await check(root);
    writeFileSync(contract(), readFileSync(contract(), 'utf8').replace(/summary: ([^\n]+)/, 'summary: $1 (edited)'));
    const lines: string[] = [];
    const result = await build({ root, log: (l) => lines.push(l) });
    expect(result.failures).toEqual([]);
    expect(result.rebuilt).toEqual(['api:dev']);
    expect(readFileSync(path.join(root, 'generated/dev/openapi.json'), 'utf8')).toContain('(edited)');
    // Its page follows its new bundle.
    expect(lines.some((l) => /^docs\s+dev\s/.test(l))).toBe(true);
    expect(readFileSync(path.join(root, 'generated/docs/dev.html'), 'utf8')).toContain('(edited)');
  });

  test('a check that finds drift records nothing', async () => {
    rmSync(path.join(root, '.cache'), { recursive: true, force: true });
    writeFileSync(contract(), readFileSync(contract(), 'utf8').replace('(edited)', '(edited again)'));
    const { ok, messages } = await check(root);
    expect(ok).toBe(false);
    expect(messages).toContain('drift: generated/dev/openapi.json differs from a fresh build (run npm run build)');
    expect(existsSync(stateFile())).toBe(false);
  });
});
