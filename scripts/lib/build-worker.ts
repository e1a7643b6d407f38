/**
 * The toolkit's worker: builds the share of units its parent sends (`BuildOptions` with `only`;
 * the parent merges the build state) or lints one service (the build lints apart when it has a core
 * to spare), passing each log line up as it comes, then its answer. It serves one request after
 * another for as long as its parent keeps it (scripts/lib/pipeline.ts, `askWorker`).
 */
import { lintService } from '../steps/lint.js';
import { build } from './pipeline.js';
import type { WorkerReply, WorkerRequest } from './pipeline.js';

// The parent gone (it ended, a build stopped by a signal, `npm run dev` stopping), nobody will ask again.
process.once('disconnect', () => process.exit(1));

const reply = (message: WorkerReply) => process.send?.(message);

process.on('message', (request: WorkerRequest) => {
  const work: Promise<WorkerReply> =
    'build' in request ? build({ ...request.build, log: (line) => reply({ log: line }) }).then((result) => ({ result })) : lintService(request.lint.root, request.lint.service).then((problems) => ({ problems }));
  work.then(reply, (error: unknown) => {
    console.error(`${'build' in request ? 'build' : 'lint'} worker: ${(error as Error).stack ?? String(error)}`);
    reply({ error: (error as Error).message ?? String(error) });
  });
});
