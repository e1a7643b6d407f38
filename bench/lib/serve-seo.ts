/** A seo stub alone, for the benchmarks: `--no-validation` turns contract validation off. */
import express from 'express';
import { createSeoApp } from '../../server-stubs/seo/app.js';

const validation = !process.argv.includes('--no-validation');
const port = Number(process.env.PORT ?? 0);
const seo = createSeoApp({ validateRequests: validation, validateResponses: validation, rateLimits: false });
const app = express();
app.use(seo.basePath, seo.router);
// CPU time the server has used: per request, it measures the cost of validation without the
// machine's other load, which moves throughput figures by a factor of two here.
app.get('/__bench/cpu', (_req, res) => {
  const { user, system } = process.cpuUsage();
  res.json({ micros: user + system });
});
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : port}\n`);
});
