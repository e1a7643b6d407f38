/**
 * The floor of the request path: a bare Express app (express.json and one route per operation) that
 * answers the same bodies the stub answers, with no validation, auth or framework around it.
 * `serve-bare.ts <routes.json>`, where the file lists `{method, path, status, body}` (path in Express
 * syntax, `/seo/projects/:projectId`). The benchmark writes it from the stub's own answers.
 */
import express from 'express';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createExpressServer } from '../../server-stubs/lib/http-server.js';

interface Route {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  status: number;
  body: unknown;
}

const file = process.argv[2];
if (!file) throw new Error('usage: serve-bare.ts <routes.json>');
const routes = JSON.parse(readFileSync(file, 'utf8')) as Route[];
const port = Number(process.env.PORT ?? 0);
const app = express();
app.use(express.json({ limit: '5mb' }));
for (const route of routes) app[route.method](route.path, (_req, res) => void res.status(route.status).json(route.body));
const server = (process.argv.includes('--app-prototypes') ? createExpressServer(app) : http.createServer(app)).listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
