/**
 * What the platform routes keep between requests (stored responses, A2A tasks, tool-server
 * connections) and how they are set up, reset and shut down.
 */
import type { Clock } from '../lib/clock.js';
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

export function createPlatformState(clock: Clock, options: Partial<PlatformOptions> = {}) {
  const responses = new ResponsesStore<ResponseObject>();
  const tasks = new TaskStore();
  const mcp = new McpManager({
    stdio: options.mcpStdio ?? stdioPolicyFromEnv(),
    resolver: options.resolver ?? resolverFromEnv(),
    allowLoopback: options.allowLoopback ?? allowLoopbackFromEnv(),
    connectTimeoutMs: options.mcpConnectTimeoutMs ?? 5_000,
    callTimeoutMs: options.mcpCallTimeoutMs ?? 30_000,
    now: () => clock.now(),
  });
  return {
    responses,
    tasks,
    mcp,
    async reset() {
      responses.clear();
      tasks.clear();
      await mcp.closeAll();
    },
    close: () => mcp.closeAll(),
  };
}

export type PlatformState = ReturnType<typeof createPlatformState>;
