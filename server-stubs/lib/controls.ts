import type { operations } from '../../generated/stub-controls/types.gen.js';
import { ClockMoveRefused, type StubClock } from './clock.js';
import { clearCoverage, readCoverage, type CoverageBook } from './coverage.js';
import type { ErrorMapper } from './errors.js';
import { describeIssues } from './errors.js';
import { handlersFor, type HandlerMap } from './handlers.js';
import { createServiceRouter } from './service-router.js';
import type { StubInstance } from './service.js';
import { exportState, importState, StateRequestRefused } from './state-export.js';

/** What the controls tell the state keeper (`state-keeper.ts`), so what they changed is kept too. */
export interface StateNotices {
  /** the services' state may have changed (the clock moved, an import): kept before the answer */
  changed(): Promise<void>;
  /** every service went back to its seeds: what was kept goes too */
  cleared(): Promise<void>;
}

const noticesIgnored: StateNotices = { changed: async () => {}, cleared: async () => {} };

/** Exports run to megabytes; an import takes what an export gives. */
const importLimit = '256mb';

const controlErrors: ErrorMapper = (failure) => ({ status: failure.status, body: { error: describeIssues(failure) } });

/**
 * The development controls of `npm start` (CONVENTIONS §6), served at `/_stub` by the same
 * framework as the services, from their own small contract (openapi/stub-controls/).
 */
export function createStubControls(clock: StubClock, services: () => Array<{ slug: string; instance: StubInstance }>, coverage?: CoverageBook, state: StateNotices = noticesIgnored) {
  const clockState = () => ({ now: new Date(clock.now()).toISOString(), manual: clock.manual });
  const runDue = async () => {
    for (const { instance } of services()) await instance.runDue?.();
  };
  const handlers = handlersFor<operations, never>()({
    getStubClock: () => ({ status: 200, body: clockState() }),
    moveStubClock: async ({ body, fail }) => {
      try {
        if ('set' in body) clock.set(Date.parse(body.set));
        else clock.advance(body.advanceSeconds * 1000);
      } catch (error) {
        if (error instanceof ClockMoveRefused) fail(400, undefined, error.message);
        throw error;
      }
      await runDue();
      await state.changed();
      return { status: 200, body: clockState() };
    },
    receiveMailInbound: async ({ body, fail }) => {
      const control = services().find((s) => s.slug === 'mail')?.instance.controls?.inbound;
      if (!control) return fail(404, undefined, 'The mail stub is not running');
      const answer = await control(body);
      await state.changed();
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
      await state.cleared();
      return { status: 200, body: { reset } };
    },
    ...coverageHandlers(coverage),
    exportStubState: ({ query, fail }) => {
      try {
        return { status: 200, body: exportState(services(), query.service) };
      } catch (error) {
        if (error instanceof StateRequestRefused) return fail(error.status, undefined, error.message);
        throw error;
      }
    },
    importStubState: async ({ body, fail }) => {
      let loaded: string[];
      try {
        loaded = importState(services(), body);
      } catch (error) {
        if (error instanceof StateRequestRefused) return fail(400, undefined, error.message);
        throw error;
      }
      await state.changed();
      return { status: 200, body: { loaded } };
    },
  }) satisfies HandlerMap<operations, never>;
  return createServiceRouter<operations, never>({ slug: 'stub-controls', handlers, security: {}, errors: controlErrors, clock, bodyLimit: importLimit });
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
