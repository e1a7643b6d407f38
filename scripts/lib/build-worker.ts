/**
 * A build worker: builds the share of units its parent sends (`BuildOptions` with `only`), passes
 * each log line up as it comes, and answers the result; the parent merges the build state.
 */
import { build, type BuildOptions } from './pipeline.js';

// The parent gone (a build stopped by a signal, `npm run dev` stopping), nobody will take the result.
process.once('disconnect', () => process.exit(1));

process.once('message', (options: BuildOptions) => {
  build({ ...options, log: (line) => process.send?.({ log: line }) })
    .then((result) => process.send?.({ result }, () => process.exit(0)))
    .catch((error: unknown) => {
      console.error(`build worker: ${(error as Error).stack ?? String(error)}`);
      process.exit(1);
    });
});
