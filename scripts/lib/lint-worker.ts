/**
 * A lint worker: lints the one service its parent sends and answers the problems. The build lints
 * here when it has a core to spare, while it bundles and generates that service's code.
 */
import { lintService } from '../steps/lint.js';
import type { ApiService } from './project.js';

// The parent gone (a build stopped by a signal, `npm run dev` stopping), nobody will take the result.
process.once('disconnect', () => process.exit(1));

process.once('message', ({ root, service }: { root: string; service: ApiService }) => {
  lintService(root, service)
    .then((problems) => process.send?.({ problems }, () => process.exit(0)))
    .catch((error: unknown) => {
      console.error(`lint worker: ${(error as Error).stack ?? String(error)}`);
      process.exit(1);
    });
});
