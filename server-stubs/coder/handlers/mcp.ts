import { coderHandlers } from '../context.js';
import { ToolServerExists, ToolServerNotFound, ToolServerRefused, ToolServerUnreachable } from '../mcp-manager.js';
import type { PlatformState } from '../platform-state.js';

type Failing<S extends number> = (status: S, code: undefined, message: string) => never;

/** The manager's typed failures as the statuses each operation declares; anything else is a bug. */
function answerFailure<S extends number>(fail: Failing<S>, error: unknown, statuses: Partial<Record<'refused' | 'notFound' | 'exists' | 'unreachable', S>>): never {
  const status =
    error instanceof ToolServerRefused ? statuses.refused :
    error instanceof ToolServerNotFound ? statuses.notFound :
    error instanceof ToolServerExists ? statuses.exists :
    error instanceof ToolServerUnreachable ? statuses.unreachable : undefined;
  if (status === undefined) throw error;
  return fail(status, undefined, (error as Error).message);
}

/** External tool servers (MCP), per key owner. */
export function mcpHandlers({ mcp }: PlatformState) {
  return coderHandlers({
    configureToolServer: async ({ body, principal, fail }) => {
      try {
        return { status: 201, body: await mcp.configure(principal.owner, body) };
      } catch (error) {
        // A server that cannot be connected makes the registration unusable: the caller's to fix (422), not a gateway failure.
        return answerFailure(fail, error, { refused: 403, exists: 409, unreachable: 422 });
      }
    },

    listToolServers: ({ principal }) => {
      const servers = mcp.list(principal.owner);
      return { status: 200, body: { servers, count: servers.length } };
    },

    listTools: async ({ principal }) => {
      const { tools, unavailable } = await mcp.tools(principal.owner);
      return { status: 200, body: { tools, count: tools.length, unavailable } };
    },

    callTool: async ({ body, principal, fail }) => {
      try {
        const result = await mcp.call(principal.owner, body.server, body.tool, body.arguments);
        return { status: 200, body: { server: body.server, tool: body.tool, ...result } };
      } catch (error) {
        return answerFailure(fail, error, { notFound: 404, unreachable: 502 });
      }
    },

    removeToolServer: async ({ body, principal, fail }) => {
      try {
        await mcp.remove(principal.owner, body.name);
        return { status: 200, body: { name: body.name, removed: true } };
      } catch (error) {
        return answerFailure(fail, error, { notFound: 404 });
      }
    },
  });
}
