/**
 * Rules every operation of every service must follow (CONVENTIONS §3), so a gap is a failing test,
 * not a review finding.
 */
import { describe, expect, test } from 'vitest';
import { deref, firstExample, listOperations, listWebhooks, requestBodyOf, responsesOf, type JsonNode } from '../../server-stubs/lib/openapi/document.js';
import { defaultRoot } from '../../server-stubs/lib/root.js';
import { findApiServices } from '../../scripts/lib/project.js';
import { declares, frameworkStatuses, loadContract } from '../../server-stubs/lib/contract.js';

const services = findApiServices(defaultRoot).map((s) => s.slug);

/** What every operation and webhook says about itself: a summary, a description, one tag. */
function documentationProblems(op: JsonNode): string[] {
  const problems: string[] = [];
  if (!op.summary) problems.push('no summary');
  if (!op.description) problems.push('no description');
  if (op.tags?.length !== 1) problems.push('not exactly one tag');
  return problems;
}

describe.each(services)('%s contract', (slug) => {
  const { document } = loadContract(slug);
  const operations = listOperations(document);

  const webhooks = listWebhooks(document);

  test('has operations, each with a unique camelCase operationId', () => {
    expect(operations.length).toBeGreaterThan(0);
    const ids = [...operations, ...webhooks].map((o) => o.op.operationId);
    for (const id of ids) expect(id, 'operationId').toMatch(/^[a-z][a-zA-Z0-9]+$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test.each(operations.map((o) => [o.label, o] as const))('%s is documented, secured and answers its errors', (_label, operation) => {
    const { op } = operation;
    const problems = documentationProblems(op);
    const security = op.security ?? document.security;
    if (!Array.isArray(security)) problems.push('no security (an open operation says security: [])');
    const responses = responsesOf(document, operation);
    const statuses = Object.keys(responses);
    const success = statuses.filter((s) => /^[23]/.test(s));
    if (success.length === 0) problems.push('no success response');
    if (Array.isArray(security) && security.some((r) => Object.keys(r).length > 0) && !statuses.includes('401')) {
      problems.push('secured but no 401');
    }
    if ((op.parameters?.length || op.requestBody) && !statuses.includes('400') && !statuses.includes('422')) {
      problems.push('takes input but documents no 400');
    }
    if (op['x-rate-limit']) {
      const tooMany = responses['429'];
      if (!tooMany) problems.push('rate limited but no 429');
      else if (!tooMany.headers?.['Retry-After']) problems.push('429 without Retry-After');
    }
    const body = requestBodyOf(document, operation);
    for (const [mediaType, media] of Object.entries<JsonNode>(body?.content ?? {})) {
      if (!firstExample(document, media).found) problems.push(`request ${mediaType} has no example`);
    }
    const main = success[0];
    for (const [mediaType, media] of Object.entries<JsonNode>(main ? (responses[main]?.content ?? {}) : {})) {
      if (!firstExample(document, media).found) problems.push(`${main} ${mediaType} has no example`);
    }
    for (const [status, response] of Object.entries<JsonNode>(responses)) {
      if (!/^[45]/.test(status)) continue;
      if (!response.content) problems.push(`${status} has no error body`);
      for (const [mediaType, media] of Object.entries<JsonNode>(response.content ?? {})) {
        if (!deref(document, media.schema)) problems.push(`${status} ${mediaType} has no schema`);
      }
    }
    expect(problems).toEqual([]);
  });

  test.each(operations.map((o) => [o.label, o] as const))('%s declares every status the framework can answer (DECISIONS G-2)', (_label, operation) => {
    const undeclared = frameworkStatuses(document, operation).filter((status) => !declares(operation, status));
    expect(undeclared, 'statuses the stub framework can answer but the operation does not declare').toEqual([]);
  });

  if (webhooks.length > 0) {
    test.each(webhooks.map((o) => [o.label, o] as const))('%s is documented, signed and exemplified', (_label, webhook) => {
      const { op } = webhook;
      const problems = documentationProblems(op);
      const body = requestBodyOf(document, webhook);
      if (!body?.content) problems.push('no payload');
      for (const [mediaType, media] of Object.entries<JsonNode>(body?.content ?? {})) {
        if (!deref(document, media.schema)) problems.push(`${mediaType} payload has no schema`);
        if (!firstExample(document, media).found) problems.push(`${mediaType} payload has no example`);
      }
      if (!Object.keys(responsesOf(document, webhook)).some((s) => /^2/.test(s))) problems.push('no 2xx: what the receiver answers to accept');
      const signature = document['x-webhook-signature']?.header as string | undefined;
      if (signature && !op.parameters.some((p: JsonNode) => p.in === 'header' && p.name.toLowerCase() === signature.toLowerCase())) {
        problems.push(`no ${signature} header`);
      }
      expect(problems).toEqual([]);
    });
  }
});
