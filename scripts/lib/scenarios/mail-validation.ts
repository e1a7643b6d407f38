/**
 * The validation part of the mail scenario: the credit balance and a batch (metered, summarized),
 * with the refusals the handler decides (the plan gate) and those the contract decides (exactly one
 * of `email`/`emails`, a body that is not JSON). It runs against a stub on the system resolver,
 * which may have no network: nothing here depends on what DNS answers, only on syntax and metering.
 */
import assert from 'node:assert/strict';
import { createMailClient } from '../../../generated/mail/client.gen.js';
import type { MailFixture, MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required, transportOf } from './scenario.js';

const freeKey = 'msk_test_free';
const onFreePlan = (f: MailFixture) => createMailClient({ baseUrl: f.ctx.baseUrl, headers: { authorization: `Bearer ${freeKey}` }, fetch: transportOf(f.ctx) });

/** Unique per run, so a long-running stub never answers from an earlier run's state. */
const fresh = (label: string) => `${label}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}@example.com`;

/** A malformed address is a result (syntax false), not a refusal: the one result the scenario can predict without DNS. */
const malformed = 'not-an-address';

async function notJson(f: MailFixture) {
  const response = await transportOf(f.ctx)(`${f.ctx.baseUrl}/v1/validate`, { method: 'POST', headers: { ...f.ctx.headers, 'content-type': 'text/plain' }, body: 'ada@example.com' });
  return { status: response.status, body: await response.json() };
}

export const validationPart: MailScenarioPart = {
  async setup(f) {
    f.made.validationBalance = String(required('read the validation balance', await f.api.GET('/v1/validate'), 200).credits.balance);
  },

  calls: {
    getValidationBalance: async ({ api }) => outcomeOf(await api.GET('/v1/validate')),
    validateEmails: async ({ api }) => outcomeOf(await api.POST('/v1/validate', { body: { emails: [malformed, fresh('scenario'), malformed], options: { skip_smtp: true } } })),
  },

  expectations: {
    getValidationBalance: (b, f) => assert.equal(b.credits.balance, Number(f.made.validationBalance), 'reading the balance spends nothing'),
    validateEmails: (b, f) => {
      assert.ok('results' in b, 'a request with `emails` gets the batch result');
      assert.equal(b.results.length, 3, 'one result per address, repeats included');
      assert.deepEqual(
        { email: b.results[0]?.email, syntax: b.results[0]?.checks.syntax, valid: b.results[0]?.is_valid, score: b.results[0]?.score },
        { email: malformed, syntax: false, valid: false, score: 0 },
      );
      assert.deepEqual(b.results[2], b.results[0], 'a repeated address gets the same result');
      assert.equal(b.results[1]?.checks.syntax, true);
      const { total, valid, invalid, risky, unknown } = b.summary;
      assert.equal(total, 3);
      assert.equal(valid + invalid + risky + unknown, total, 'each result is counted in exactly one class');
      assert.ok(invalid >= 2, 'the malformed address counts invalid at both places');
      assert.deepEqual(b.credits, { used: 1, balance_after: Number(f.made.validationBalance) - 1 });
    },
  },

  refusals: [
    { id: 'getValidationBalance', status: 403, why: 'the Free plan has no validation', call: async (f) => outcomeOf(await onFreePlan(f).GET('/v1/validate')) },
    { id: 'validateEmails', status: 403, why: 'the Free plan has no validation (checked before its zero credits)', call: async (f) => outcomeOf(await onFreePlan(f).POST('/v1/validate', { body: { email: 'ada@example.com' } })) },
    {
      id: 'validateEmails',
      status: 400,
      why: 'both email and emails',
      call: async (f) => outcomeOf(await f.api.POST('/v1/validate', { body: { email: 'ada@example.com', emails: ['bob@example.com'] } as never })),
    },
    { id: 'validateEmails', status: 415, why: 'a body that is not JSON', call: notJson },
  ],

  underSwitch: [
    {
      id: 'validateEmails',
      status: 402,
      switch: "a balance below a request's credits: the scenario's Max user holds 1000 and a request costs at most 5 (test/mail/validation.test.ts drains the Pro user's 10)",
    },
  ],
};
