/**
 * What the compiler says about handlers, checked by compiling small handler files in a temporary
 * folder (never in the checkout) with the project's compiler: an answer with a property its schema
 * does not declare fails once, naming the operation and the property, whether spread or written
 * out; a correct map passes; a type mistake is reported once, at its handler, not again where the
 * service joins its maps; and an operation whose parameter blocks are all optional still has them
 * typed by name.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defaultRoot } from '../../server-stubs/lib/root.js';

const run = promisify(execFile);
const repo = (...parts: string[]) => path.join(defaultRoot, ...parts).split(path.sep).join('/');

/** What every case file starts with: seo's and blog's operations and a map builder for each. */
const prelude = `
import type { components, operationDefaults, operations } from '${repo('generated/seo/types.gen.js')}';
import type { operationDefaults as blogDefaults, operations as blogOperations } from '${repo('generated/blog/types.gen.js')}';
import type { operationDefaults as mailDefaults, operations as mailOperations } from '${repo('generated/mail/types.gen.js')}';
import type { Principal } from '${repo('server-stubs/lib/auth.js')}';
import { handlersFor, type HandlerMap } from '${repo('server-stubs/lib/handlers.js')}';
type Project = components['schemas']['Project'];
declare const project: Project;
const seoHandlers = handlersFor<operations, Principal, operationDefaults>();
const blogHandlers = handlersFor<blogOperations, Principal, blogDefaults>();
const mailHandlers = handlersFor<mailOperations, Principal, mailDefaults>();
export const unused = { blogHandlers, mailHandlers, project };
export type Seo = HandlerMap<operations, Principal, operationDefaults>;
`;

const cases = {
  // The spread is the case TypeScript's own excess-property check never sees.
  spread: `
export const map = seoHandlers({
  getProject: () => {
    const answer: components['schemas']['ProjectResponse'] = { project };
    return { status: 200, body: { ...answer, price: 'free' } };
  },
});`,
  literal: `
export const map = seoHandlers({
  updateProject: ({ params }) => ({ status: 200, body: { project: { id: params.projectId, name: 'n', domain: null, price: 'free' } } }),
});`,
  correct: `
export const map = seoHandlers({
  getProject: ({ params, fail }) => (params.projectId === project.id ? { status: 200, body: { project: { ...project } } } : fail(404, 'NOT_FOUND', 'Project not found')),
  deleteProject: async () => ({ status: 200, body: { success: true } }),
  listProjects: () => ({ status: 200, body: { projects: [project].map(({ id, name, domain }) => ({ id, name, domain })) } }),
});
export const blog = blogHandlers({
  searchBlog: ({ query }) => {
    const text: string | undefined = query.q;
    const kind: 'all' | 'articles' | 'profiles' | 'tags' | undefined = query.type;
    return { status: 200, body: { articles: [], profiles: [], tags: [], ...(text && kind ? {} : {}) } };
  },
});
export const mail = mailHandlers({
  // A declared header is read under the name Node gives it, typed, its contract default filled in.
  sendEmail: ({ headers, fail }) => {
    const sandbox: boolean = headers['x-service-sandbox'];
    return fail(sandbox ? 400 : 401, undefined, 'not here');
  },
});`,
  optionalQuery: `
export const blog = blogHandlers({
  searchBlog: ({ query, fail }) => fail(400, undefined, String(query.text)),
});`,
  joined: `
function projectHandlers() {
  return seoHandlers({
    getProject: () => ({ status: 200, body: { project: { ...project, id: 7 } } }),
  });
}
export const all = { ...projectHandlers() } satisfies Partial<Seo>;`,
};

let folder = '';
let output = '';

/** The compiler's errors (their first lines) about one case file, or about any file. */
const errors = () => output.split('\n').filter((line) => /^\S.*: error TS\d+/.test(line));
const errorsIn = (name: keyof typeof cases) => errors().filter((line) => line.startsWith(`${name}.ts(`));

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'handler-types-'));
  for (const [name, source] of Object.entries(cases)) writeFileSync(path.join(folder, `${name}.ts`), `${prelude}${source}\n`);
  writeFileSync(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({
      extends: repo('tsconfig.json'),
      compilerOptions: { typeRoots: [repo('node_modules/@types')] },
      // The framework's own files too: they augment Express's request type.
      include: ['*.ts', repo('server-stubs/lib')],
    }),
  );
  output = await run(process.execPath, [repo('node_modules/typescript-7/bin/tsc'), '--noEmit', '--pretty', 'false', '-p', 'tsconfig.json', '--checkers', '1'], { cwd: folder }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? '',
  );
}, 180_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('handler types', () => {
  test('the framework and a correct handler map type-check', () => {
    expect(errors().filter((line) => !/^(spread|literal|optionalQuery|joined)\.ts\(/.test(line))).toEqual([]);
    expect(errors(), 'the compiler ran and found the other cases').not.toEqual([]);
    expect(errorsIn('correct')).toEqual([]);
  });

  test('a spread answer with an undeclared property fails once, naming the operation and the property', () => {
    const errors = errorsIn('spread');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`"property 'price' is not declared by getProject's 200 response"`);
  });

  test('a written-out answer with an undeclared property beside declared ones fails once, naming both', () => {
    const errors = errorsIn('literal');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`"property 'project.price' is not declared by updateProject's 200 response"`);
  });

  test('a type mistake is reported once, at its handler, not again where the maps are joined', () => {
    const errors = errorsIn('joined');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^joined\.ts\(\d+,\d+\).*OperationContext<operations, "getProject"/);
  });

  test('a query whose parameters are all optional is typed by name: a name it lacks fails', () => {
    const errors = errorsIn('optionalQuery');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Property 'text' does not exist/);
  });
});
