import { coderHandlers, type CoderDeps } from '../context.js';
import type { PlatformState } from '../platform-state.js';
import { agentHandlers } from './agents.js';
import { mcpHandlers } from './mcp.js';
import { modelHandlers } from './models.js';
import { openaiHandlers } from './openai.js';

/** The OpenAI-style surface, models, agents (A2A) and tool servers (MCP). */
export function platformHandlers(deps: CoderDeps, state: PlatformState) {
  return coderHandlers({
    ...openaiHandlers(deps, state),
    ...modelHandlers(deps),
    ...agentHandlers(deps, state),
    ...mcpHandlers(state),
  });
}
