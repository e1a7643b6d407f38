import type { operations } from '../../generated/stub-controls/types.gen.js';
import { ClockMoveRefused, type StubClock } from './clock.js';
import { clearCoverage, readCoverage, type CoverageBook } from './coverage.js';
import type { ErrorMapper } from './errors.js';
import { describeIssues } from './errors.js';
import { handlersFor, type HandlerMap } from './handlers.js';
import { createServiceRouter } from './service-router.js';
import type { StubInstance } from './service.js';

const controlErrors: ErrorMapper = (failure) => ({ status: failure.status, body: { error: describeIssues(failure) } });

/**
 * The development controls of `npm start` (CONVENTIONS §6), served at `/_stub` by the same
 * framework as the services, from their own small contract (openapi/stub-controls/).
 */
export function createStubControls(clock: StubClock, services: () => Array<{ slug: string; instance: StubInstance }>, coverage?: CoverageBook) {
  const state = () => ({ now: new Date(clock.now()).toISOString(), manual: clock.manual });
  const runDue = async () => {
    for (const { instance } of services()) await instance.runDue?.();
  };
  const handlers = handlersFor<operations, never>()({
    getStubClock: () => ({ status: 200, body: state() }),
    moveStubClock: async ({ body, fail }) => {
      try {
        if ('set' in body) clock.set(Date.parse(body.set));
        else clock.advance(body.advanceSeconds * 1000);
      } catch (error) {
        if (error instanceof ClockMoveRefused) fail(400, undefined, error.message);
        throw error;
      }
      await runDue();
      return { status: 200, body: state() };
    },
    receiveMailInbound: async ({ body, fail }) => {
      const control = services().find((s) => s.slug === 'mail')?.instance.controls?.inbound;
      if (!control) return fail(404, undefined, 'The mail stub is not running');
      const answer = await control(body);
      if (answer.status === 202) return { status: 202, body: answer.body as never };
      return fail(answer.status as 400 | 404, undefined, (answer.body as { error: string }).error);
    },
    resetStubs: async () => {
      const reset: string[] = [];
      for (const { slug, instance } of services()) {
        if (!instance.reset) continue;
        await instance.reset();
        reset.push(slug);
      }
      return { status: 200, body: { reset } };
    },
    ...coverageHandlers(coverage),
  }) satisfies HandlerMap<operations, never>;
  return createServiceRouter<operations, never>({ slug: 'stub-controls', handlers, security: {}, errors: controlErrors, clock });
}

/** `GET` and `DELETE /_stub/coverage`, answered as the mock and the validating proxy answer them (coverage.ts). */
function coverageHandlers(coverage: CoverageBook | undefined) {
  return handlersFor<operations, never>()({
    getStubCoverage: ({ query, fail }) => {
      const answer = readCoverage(coverage, query.service);
      return answer.status === 200 ? answer : fail(404, undefined, answer.body.error);
    },
    clearStubCoverage: ({ query, fail }) => {
      const answer = clearCoverage(coverage, query.service);
      return answer.status === 200 ? answer : fail(404, undefined, answer.body.error);
    },
  });
}
