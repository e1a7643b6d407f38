/**
 * Rules every operation of every service must follow (CONVENTIONS §3), so a gap is a failing test,
 * not a review finding. The house rules live once, in the Redocly plugin (scripts/redocly/rules/),
 * and `npm run check` (the first step of `npm test`, and a CI job of its own) lints every service
 * with them and fails on any error: that lint is not run a second time here. What no lint rule says (operationId spelling, the statuses the stub framework can answer, what a webhook
 * carries) is checked here, its one implementation.
 */
import { describe, expect, test } from 'vitest';
import { deref, listOperations, listWebhooks, requestBodyOf, responsesOf, valueAt } from '../../server-stubs/lib/openapi/document.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices } from '../../scripts/lib/project.js';
import { declares, frameworkStatuses, loadContract } from '../../server-stubs/lib/contract.js';

const services = findApiServices(defaultRoot).map((s) => s.slug);

describe.each(services)('%s contract', (slug) => {
  const { document } = loadContract(slug);
  const operations = listOperations(document);

  const webhooks = listWebhooks(document);

  // Unique operationIds are the linter's (operation-operationId-unique); their spelling is not.
  test('has operations, each with a camelCase operationId', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const { op } of [...operations, ...webhooks]) expect(op.operationId, 'operationId').toMatch(/^[a-z][a-zA-Z0-9]+$/);
  });

  test.each(operations.map((o) => [o.label, o] as const))('%s declares every status the framework can answer (DECISIONS G-2)', (_label, operation) => {
    const undeclared = frameworkStatuses(document, operation).filter((status) => !declares(operation, status));
    expect(undeclared, 'statuses the stub framework can answer but the operation does not declare').toEqual([]);
  });

  if (webhooks.length > 0) {
    // Its summary, description, tag and payload example are the linter's (npm run check).
    test.each(webhooks.map((o) => [o.label, o] as const))('%s carries a payload with a schema, is signed and is accepted with a 2xx', (_label, webhook) => {
      const { op } = webhook;
      const problems: string[] = [];
      const body = requestBodyOf(document, webhook);
      if (!body?.content) problems.push('no payload');
      for (const [mediaType, media] of Object.entries(body?.content ?? {})) {
        if (!deref(document, deref(document, media).schema)) problems.push(`${mediaType} payload has no schema`);
      }
      if (!Object.keys(responsesOf(document, webhook)).some((s) => /^2/.test(s))) problems.push('no 2xx: what the receiver answers to accept');
      const signature: unknown = valueAt(document, ['x-webhook-signature', 'header']);
      if (typeof signature === 'string' && !op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === signature.toLowerCase())) {
        problems.push(`no ${signature} header`);
      }
      expect(problems).toEqual([]);
    });
  }
});
