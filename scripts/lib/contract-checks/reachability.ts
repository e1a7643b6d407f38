/** Reachable at all? One unknown-path request tells, before hundreds of "no answer"s. */
import type { CheckResult } from './check-result.js';
import { unknownPathRequest } from './checked-request.js';
import type { ContractRunContext } from './run-context.js';

export interface Unreachable {
  /** the report's line saying so */
  line: string;
  result: CheckResult;
}

export async function unreachable(run: ContractRunContext): Promise<Unreachable | undefined> {
  const probe = await run.sender.send('', unknownPathRequest(run, 'probe'));
  if (!probe.error) return undefined;
  return {
    line: `✗ ${run.baseUrl} cannot be reached: ${probe.error}`,
    result: { kind: 'examples', name: 'server reachable', outcome: 'failed', message: `no answer: ${probe.error}`, details: `curl -i '${run.baseUrl}${run.unknownPath}'`, ms: probe.ms },
  };
}
