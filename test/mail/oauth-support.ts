/**
 * What the OAuth tests share: a mail stub on a manual clock, a client registered through the API,
 * PKCE values, and the consent step done over HTTP with the seeded dashboard session.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { contractChecker } from '../../scripts/lib/contract-checker.js';
import { createManualClock, type StubClock } from '../../server-stubs/lib/clock.js';
import { createMailApp } from '../../server-stubs/mail/app.js';
import { serveStub, type RunningStub } from '../helpers/stub.js';
import type { AnswerBody } from '../helpers/answer-body.js';

export const contract = contractChecker('mail');
export const SESSION = 'sess_test_max';
export const CALLBACK = 'http://127.0.0.1:53682/callback';

export interface MailStub extends RunningStub {
  clock: StubClock;
}

export async function startMail(): Promise<MailStub> {
  const clock = createManualClock();
  const app = createMailApp({ clock });
  const running = await serveStub(app, '/mail');
  return { ...running, clock };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: AnswerBody;
}

/** One call, redirects not followed (a Location is part of what is tested). */
export async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as AnswerBody };
}

export const form = (fields: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));

export function postForm(url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  return call(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: form(fields) });
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return call(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** An RFC 6749 error answer, held to the contract's OAuthError body of the operation. */
export function expectOAuthError(answer: Answer, status: number, error: string, at: { path: string; method: string }) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.json?.error, answer.text).toBe(error);
  expect(contract.responseErrors(at.path, at.method, String(status), answer.json)).toEqual([]);
}

/** A refusal as a browser gets it: an HTML page naming the error, a declared `text/html` 400, and no redirect. */
export function expectRefusalPage(answer: Answer, error: string) {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.headers.get('content-type') ?? '').toMatch(/^text\/html/);
  expect(answer.text).toContain(`<code>${error}</code>`);
  expect(answer.headers.get('location')).toBeNull();
}

export async function register(baseUrl: string, metadata: Record<string, unknown> = {}): Promise<{ client_id: string } & AnswerBody> {
  const answer = await postJson(`${baseUrl}/api/oauth/register`, { client_name: 'Example CLI', redirect_uris: [CALLBACK], ...metadata });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as { client_id: string } & AnswerBody;
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
}

export function authorizeUrl(baseUrl: string, params: AuthorizeParams | Record<string, string | undefined>) {
  const query = form({ response_type: 'code', redirect_uri: CALLBACK, ...(params as Record<string, string | undefined>) });
  return `${baseUrl}/api/oauth/authorize?${query}`;
}

/** The consent page's hidden fields, as the browser would submit them. */
export function consentFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = match[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  }
  return fields;
}

/** Shows the consent page to the seeded session and submits `decision`; answers the callback URL. */
export async function decide(baseUrl: string, params: AuthorizeParams, decision: 'approve' | 'deny', session = SESSION): Promise<URL> {
  const page = await call(authorizeUrl(baseUrl, params), { headers: { cookie: `session=${session}`, accept: 'text/html' } });
  expect(page.status, page.text).toBe(200);
  const answer = await postForm(`${baseUrl}/api/oauth/authorize`, { ...consentFields(page.text), decision }, { cookie: `session=${session}` });
  expect(answer.status, answer.text).toBe(302);
  return new URL(answer.headers.get('location')!);
}

/** Approves and exchanges the code: the access token answer. */
export async function tokenFor(baseUrl: string, params: Omit<AuthorizeParams, 'code_challenge'>, session = SESSION) {
  const { verifier, challenge } = pkce();
  const callbackUrl = await decide(baseUrl, { ...params, code_challenge: challenge }, 'approve', session);
  const code = callbackUrl.searchParams.get('code')!;
  const answer = await postForm(`${baseUrl}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: params.redirect_uri ?? CALLBACK,
    client_id: params.client_id,
    code_verifier: verifier,
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as { access_token: string; token_type: string; expires_in: number; scope: string };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
