/**
 * Shared helpers of the mail identity tests (not a test file itself): a stub on a manual clock,
 * typed clients per credential, and the answer checked against the contract.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createMailClient, type MailClient } from '../../generated/mail/client.gen.js';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { createMailApp, type MailAppOptions } from '../../server-stubs/mail/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import type { AnswerBody } from '../helpers/answer-body.js';

export const contract = contractChecker('mail');

export interface MailStub {
  app: ReturnType<typeof createMailApp>;
  stub: RunningStub;
  clock: StubClock;
  baseUrl: string;
  /** a client presenting an API key */
  key(raw: string): MailClient;
  /** a client presenting a dashboard session cookie */
  session(value: string): MailClient;
  anonymous(): MailClient;
  close(): Promise<void>;
}

export async function startMail(options: MailAppOptions = {}): Promise<MailStub> {
  const clock = createManualClock();
  const app = createMailApp({ clock, ...options });
  const stub = await serveStub(app, app.basePath);
  const client = (headers: Record<string, string>) => createMailClient({ baseUrl: stub.baseUrl, headers });
  return {
    app,
    stub,
    clock,
    baseUrl: stub.baseUrl,
    key: (raw) => client({ authorization: `Bearer ${raw}` }),
    session: (value) => client({ cookie: `session=${value}` }),
    anonymous: () => client({}),
    close: () => stub.close(),
  };
}

/**
 * The file's stub: started once before its tests, put back to its seeds before each, closed after.
 * Answers a stand-in that reaches the running stub, so a test file reads `mail.key(...)` as before.
 * `options` may be a function, read when the stub starts (after the hooks registered before it,
 * such as a DNS server's).
 */
export function mailForEachTest(options: MailAppOptions | (() => MailAppOptions) = {}): MailStub {
  let current: MailStub | undefined;
  beforeAll(async () => {
    current = await startMail(typeof options === 'function' ? options() : options);
  });
  afterAll(() => current?.close());
  beforeEach(() => current!.app.reset());
  return new Proxy({} as MailStub, {
    get: (_target, name) => {
      if (!current) throw new Error('the mail stub is not started yet: use it inside a test or hook');
      return current[name as keyof MailStub];
    },
  });
}

type Result = { data?: unknown; error?: unknown; response: Response };

/** The answer has this status and a body the contract allows for it; answers the body. */
export function answered<T = AnswerBody>(result: Result, status: number, path: string, method: string): T {
  const body = result.response.ok ? result.data : result.error;
  expect(result.response.status, JSON.stringify(body)).toBe(status);
  if (body !== undefined) expect(contract.responseErrors(path, method, status, body)).toEqual([]);
  return body as T;
}

/** Signs in through the development login form; answers the response and the new session value. */
export async function devLogin(baseUrl: string, userId: string, returnTo?: string) {
  const form = new URLSearchParams({ user_id: userId, ...(returnTo && { return_to: returnTo }) });
  const response = await fetch(`${baseUrl}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual' });
  const text = await response.text();
  const session = /(?:^|,\s*)session=([^;,]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  return { response, text, session };
}
