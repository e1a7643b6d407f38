import { coderHandlers, type CoderDeps } from '../context.js';
import { agentHandlers } from './agent.js';
import { healthHandlers } from './health.js';
import { messageHandlers } from './messages.js';
import { sessionHandlers } from './sessions.js';

/** Sessions, the messages format, the research-agent stream and health. */
export function gatewayHandlers(deps: CoderDeps) {
  return coderHandlers({
    ...sessionHandlers(deps),
    ...messageHandlers(deps),
    ...agentHandlers(deps),
    ...healthHandlers(deps),
  });
}
