import type { Request, Response } from 'express';

/** A middleware as the framework writes them: it calls `next` (with an error to fail), or throws, or rejects. */
export type Step = (req: Request, res: Response, next: (error?: unknown) => void) => unknown;

interface Run {
  i: number;
  advance: (error?: unknown) => void;
}

/**
 * Steps run in order, as one middleware would run them. Each `router.use` layer costs Express's
 * router a path match, a prefix trim and a closure per request; the framework's ten steps as layers
 * were a tenth of a request's CPU under load. Failures behave as with layers: a thrown error or a
 * rejected promise goes to `next(error)`, and a step that calls `next(error)` skips the rest.
 */
export function runSteps(steps: ReadonlyArray<Step>, req: Request, res: Response, next: (error?: unknown) => void): void {
  const run: Run = { i: 0, advance: next };
  // Assigned to a property, not declared: tsx (esbuild keepNames) wraps every function declared with
  // a name in a `__name` call that redefines its `name`, a cost paid per request for a closure made per request.
  run.advance = (error?: unknown) => {
    if (error) return next(error);
    if (run.i === steps.length) return next();
    const current = steps[run.i++]!;
    try {
      const result = current(req, res, run.advance);
      if (result instanceof Promise) result.catch((rejection: unknown) => next(rejection ?? new Error('a middleware rejected without a reason')));
    } catch (thrown) {
      next(thrown ?? new Error('a middleware threw without a reason'));
    }
  };
  run.advance();
}
