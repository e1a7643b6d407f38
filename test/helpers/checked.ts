import { expect } from 'vitest';
import type { ContractChecker } from '../../scripts/lib/contract-checker.js';
import type { AnswerBody } from './answer-body.js';

/**
 * `checked(result, where)` for a service: the `{status, body, headers}` of an openapi-fetch result,
 * its body asserted valid against the contract for that status.
 */
export function contractChecked(contract: ContractChecker) {
  return function checked(result: { data?: unknown; error?: unknown; response: Response }, where: { path: string; method: string }) {
    const status = result.response.status;
    const body = (result.response.ok ? result.data : result.error) as AnswerBody;
    expect(contract.responseErrors(where.path, where.method, status, body), `${where.method} ${where.path} ${status} keeps the contract`).toEqual([]);
    return { status, body, headers: result.response.headers };
  };
}
