/**
 * Browsers are clients (DECISIONS G-3): a page served from another origin calls the seo stub with
 * its bearer key in real Chromium (Debian's, driven by playwright-core) and reads the answer, its
 * error bodies and the headers the contract declares.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server-stubs/server.js';


const page = `<!doctype html><meta charset="utf-8"><title>app</title><pre id="out">waiting</pre>
<script>
  async function call(url, init) {
    const res = await fetch(url, init);
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('Retry-After') };
  }
  window.run = async (base) => {
    const auth = { headers: { Authorization: 'Bearer seo_test_key' } };
    const list = await call(base + '/seo/projects?_=' + Date.now(), auth);
    const created = await call(base + '/seo/projects', { method: 'POST', headers: { ...auth.headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'From the browser' }) });
    const unauthenticated = await call(base + '/seo/projects', {});
    // A mistyped path: its preflight passes, so the page reads the 404 instead of a CORS failure.
    const mistyped = await call(base + '/seo/projectz', auth);
    return { list, created, unauthenticated, mistyped };
  };
</script>`;

describe.skipIf(!chromiumAvailable)('a page on another origin calls the stubs', () => {
  let stubs: PlatformServer;
  let app: http.Server;
  let browser: Browser;
  let appOrigin = '';

  beforeAll(async () => {
    stubs = await startPlatformServer(0, '127.0.0.1');
    app = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    // localhost and 127.0.0.1 on different ports: two origins, so every call is cross-origin.
    appOrigin = `http://localhost:${(app.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => app?.close(() => resolve()));
    await stubs?.close();
  });

  test('reads successes and error bodies, with a preflight for the bearer key', async () => {
    const tab = await browser.newPage();
    const preflights: string[] = [];
    const seen = (req: http.IncomingMessage) => {
      if (req.method === 'OPTIONS') preflights.push(req.url ?? '');
    };
    stubs.server.on('request', seen);
    await tab.goto(appOrigin);
    const result = await tab.evaluate((base) => (window as unknown as { run(base: string): Promise<Record<string, unknown>> }).run(base), `http://127.0.0.1:${stubs.port}`);
    expect(result.list).toMatchObject({ status: 200, body: { projects: expect.any(Array) } });
    expect(result.created).toMatchObject({ status: 201, body: { project: { name: 'From the browser' } } });
    expect(result.unauthenticated).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
    expect(result.mistyped).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(preflights.some((url) => url.endsWith('/projectz'))).toBe(true);
    expect(preflights.length, 'the bearer header made the browser ask first').toBeGreaterThan(0);
    stubs.server.off('request', seen);
    await tab.close();
  });
});
