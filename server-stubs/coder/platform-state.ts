/**
 * What the platform routes keep between requests (stored responses, A2A tasks, tool-server
 * connections) and how they are set up, reset and shut down. Responses and tasks are state, kept in
 * the app's state store; tool-server connections are live processes and sockets, so they are not.
 */
import type { StateStore } from '../lib/store.js';
import { allowLoopbackFromEnv, resolverFromEnv, type Resolver } from '../lib/net-guard.js';
import { TaskStore } from './a2a-agents.js';
import { McpManager, stdioPolicyFromEnv, type StdioPolicy } from './mcp-manager.js';
import { ResponsesStore } from './responses-store.js';
import type { ResponseObject } from './handlers/openai-shapes.js';

export interface PlatformOptions {
  /** which stdio tool servers may run (default: `CODER_MCP_STDIO`, else the seeded command line) */
  mcpStdio: StdioPolicy;
  /** DNS for the tool-server SSRF guard (default: `STUB_DNS_SERVER` or the system's) */
  resolver: Resolver;
  /** let tool servers be on loopback (default: `STUB_ALLOW_LOOPBACK=1`) */
  allowLoopback: boolean;
  mcpConnectTimeoutMs: number;
  mcpCallTimeoutMs: number;
}

export function createPlatformState(state: StateStore, options: Partial<PlatformOptions> = {}) {
  const responses = new ResponsesStore<ResponseObject>(state);
  const tasks = new TaskStore(state);
  const mcp = new McpManager({
    stdio: options.mcpStdio ?? stdioPolicyFromEnv(),
    resolver: options.resolver ?? resolverFromEnv(),
    allowLoopback: options.allowLoopback ?? allowLoopbackFromEnv(),
    connectTimeoutMs: options.mcpConnectTimeoutMs ?? 5_000,
    callTimeoutMs: options.mcpCallTimeoutMs ?? 30_000,
    now: () => state.clock.now(),
  });
  return {
    responses,
    tasks,
    mcp,
    /** Closes the tool-server connections; the state store's reset empties responses and tasks. */
    reset: () => mcp.closeAll(),
    close: () => mcp.closeAll(),
  };
}

export type PlatformState = ReturnType<typeof createPlatformState>;
