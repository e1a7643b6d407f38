/**
 * External tool servers (MCP) the gateway connects to, per key owner, through the MCP SDK client:
 * stdio processes (only command lines the deployment allows) and Streamable HTTP endpoints (behind
 * the SSRF guard). Failures are typed so the handlers can answer the declared statuses.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * The MCP SDK, loaded on the first tool server configured: it is most of the gateway's start-up
 * cost, and most runs of the stub never configure one.
 */
type McpSdk = Awaited<ReturnType<typeof mcpSdk>>;
const mcpSdk = async () => {
  const [{ Client }, { getDefaultEnvironment, StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return { Client, getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport };
};
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isBlockedAddress, loopbackHint, LookupFailed, type Resolver } from '../lib/net-guard.js';

/** Where relative stdio paths are resolved: the repository root, so the seeded command line works from any cwd. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CommandLine {
  command: string;
  args: string[];
}

/** The seeded stdio tool server: the stub's own notes server (CONVENTIONS §6 seeds, like the test keys). */
export const SEEDED_COMMAND_LINES: readonly CommandLine[] = [{ command: 'node', args: ['server-stubs/coder/tool-servers/notes.mjs'] }];

/**
 * Which stdio command lines may run on the gateway's host: none, every one (development only), or
 * exactly the listed command lines (command and args equal; `env` refused, since NODE_OPTIONS and
 * the like would turn an allowed line into any program).
 */
export type StdioPolicy = { mode: 'off' } | { mode: 'any' } | { mode: 'allowlist'; commandLines: readonly CommandLine[] };

/** `CODER_MCP_STDIO`: `off`, `any`, or unset for the seeded command lines. */
export function stdioPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): StdioPolicy {
  const value = env.CODER_MCP_STDIO?.trim().toLowerCase();
  if (value === 'off' || value === '0' || value === 'false') return { mode: 'off' };
  if (value === 'any') return { mode: 'any' };
  return { mode: 'allowlist', commandLines: SEEDED_COMMAND_LINES };
}

export type ToolServerConfig =
  | { name: string; transport: 'stdio'; command: string; args?: string[] | undefined; env?: Record<string, string> | undefined }
  | { name: string; transport: 'http'; url: string };

/** 403: the deployment does not let this server be used. */
export class ToolServerRefused extends Error {}
/** 409: the owner already has a server of that name. */
export class ToolServerExists extends Error {}
/** 404: no such server (for this owner), or no such tool on it. */
export class ToolServerNotFound extends Error {}
/** 502: the server cannot be reached, or failed. */
export class ToolServerUnreachable extends Error {}

export interface ToolServerView {
  name: string;
  transport: 'stdio' | 'http';
  command?: string;
  args?: string[];
  url?: string;
  status: 'connected';
  tool_count: number;
  server_info: { name: string; version: string } | null;
  created_at: string;
}

interface Connection {
  view: ToolServerView;
  client: Client;
  /** set when the transport closed by itself (the process exited, the session ended) */
  closedBecause?: string;
}

export interface McpManagerOptions {
  stdio: StdioPolicy;
  resolver: Resolver;
  allowLoopback: boolean;
  /** how long connecting and the MCP handshake may take */
  connectTimeoutMs: number;
  /** how long a tool call or a tool listing may take */
  callTimeoutMs: number;
  now: () => number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const CLIENT_INFO = { name: 'coding-assistant-gateway', version: '1.0.0' };

export class McpManager {
  private readonly owners = new Map<string, Map<string, Connection>>();
  /** names being connected, so two registrations of one name cannot both win */
  private readonly pending = new Set<string>();

  constructor(private readonly options: McpManagerOptions) {}

  private serversOf(owner: string | null): Map<string, Connection> {
    const key = owner ?? '';
    let servers = this.owners.get(key);
    if (!servers) this.owners.set(key, (servers = new Map()));
    return servers;
  }

  async configure(owner: string | null, config: ToolServerConfig): Promise<ToolServerView> {
    const servers = this.serversOf(owner);
    const pendingKey = `${owner ?? ''}\u0000${config.name}`;
    if (servers.has(config.name) || this.pending.has(pendingKey)) throw new ToolServerExists(`Tool server ${config.name} already exists; remove it first`);
    this.pending.add(pendingKey);
    try {
      const sdk = await mcpSdk();
      const transport = config.transport === 'stdio' ? this.stdioTransport(sdk, config) : await this.httpTransport(sdk, config.url);
      const client = new sdk.Client(CLIENT_INFO);
      await this.withDeadline(config.name, this.options.connectTimeoutMs, () => client.connect(transport), () => transport.close());
      const connection: Connection = { client, view: undefined as never };
      try {
        const { tools } = await this.withDeadline(config.name, this.options.connectTimeoutMs, () => client.listTools());
        const info = client.getServerVersion();
        connection.view = {
          name: config.name,
          transport: config.transport,
          ...(config.transport === 'stdio' ? { command: config.command, args: config.args ?? [] } : { url: config.url }),
          status: 'connected',
          tool_count: tools.length,
          server_info: info ? { name: info.name, version: info.version } : null,
          created_at: new Date(this.options.now()).toISOString(),
        };
      } catch (error) {
        await client.close().catch(() => undefined);
        throw error;
      }
      client.onclose = () => {
        connection.closedBecause ??= 'the connection closed';
      };
      servers.set(config.name, connection);
      return connection.view;
    } finally {
      this.pending.delete(pendingKey);
    }
  }

  list(owner: string | null): ToolServerView[] {
    return [...this.serversOf(owner).values()].map((c) => c.view);
  }

  async tools(owner: string | null) {
    const tools: Array<{ server: string; name: string; description: string | null; input_schema: Record<string, unknown> }> = [];
    const unavailable: Array<{ server: string; reason: string }> = [];
    for (const [name, connection] of this.serversOf(owner)) {
      try {
        for (const tool of await this.listed(name, connection)) {
          tools.push({ server: name, name: tool.name, description: tool.description ?? null, input_schema: tool.inputSchema as Record<string, unknown> });
        }
      } catch (error) {
        unavailable.push({ server: name, reason: (error as Error).message });
      }
    }
    return { tools, unavailable };
  }

  async call(owner: string | null, server: string, tool: string, args: Record<string, unknown>) {
    const connection = this.serversOf(owner).get(server);
    if (!connection) throw new ToolServerNotFound(`No tool server ${server}`);
    const listed = await this.listed(server, connection);
    if (!listed.some((t) => t.name === tool)) throw new ToolServerNotFound(`Tool server ${server} has no tool ${tool}`);
    const result = await this.withDeadline(server, this.options.callTimeoutMs, () =>
      connection.client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.options.callTimeoutMs }),
    );
    return {
      content: (Array.isArray(result.content) ? result.content : []) as Array<{ type: string; text?: string }>,
      is_error: result.isError === true,
      ...(isRecord(result.structuredContent) ? { structured_content: result.structuredContent } : {}),
    };
  }

  async remove(owner: string | null, name: string): Promise<void> {
    const servers = this.serversOf(owner);
    const connection = servers.get(name);
    if (!connection) throw new ToolServerNotFound(`No tool server ${name}`);
    servers.delete(name);
    await connection.client.close().catch(() => undefined);
  }

  /** Disconnects every server (reset and shutdown): no process outlives the stub. */
  async closeAll(): Promise<void> {
    const connections = [...this.owners.values()].flatMap((servers) => [...servers.values()]);
    this.owners.clear();
    await Promise.all(connections.map((c) => c.client.close().catch(() => undefined)));
  }

  private async listed(name: string, connection: Connection) {
    if (connection.closedBecause) throw new ToolServerUnreachable(`Tool server ${name} is gone: ${connection.closedBecause}`);
    return (await this.withDeadline(name, this.options.callTimeoutMs, () => connection.client.listTools())).tools;
  }

  private stdioTransport(sdk: McpSdk, config: Extract<ToolServerConfig, { transport: 'stdio' }>): Transport {
    const args = config.args ?? [];
    const policy = this.options.stdio;
    const line = [config.command, ...args].join(' ');
    if (policy.mode === 'off') throw new ToolServerRefused('stdio tool servers are switched off in this deployment (CODER_MCP_STDIO=off)');
    if (policy.mode === 'allowlist') {
      const allowed = policy.commandLines.some((l) => l.command === config.command && l.args.length === args.length && l.args.every((a, i) => a === args[i]));
      if (!allowed) throw new ToolServerRefused(`stdio tool server not allowed: \`${line}\` is not an allowed command line (CODER_MCP_STDIO)`);
      if (config.env && Object.keys(config.env).length > 0) throw new ToolServerRefused('stdio tool server not allowed: env is accepted only where any command may run (CODER_MCP_STDIO=any)');
    }
    return new sdk.StdioClientTransport({
      command: config.command,
      args,
      cwd: REPO_ROOT,
      env: { ...sdk.getDefaultEnvironment(), ...(config.env ?? {}) },
      stderr: 'ignore',
    });
  }

  private async httpTransport(sdk: McpSdk, url: string): Promise<Transport> {
    const target = new URL(url);
    await this.guard(target);
    // Every request the transport makes (and any URL it is pointed at) passes the guard; a redirect
    // could lead inside, so none is followed.
    const guardedFetch = async (input: string | URL | Request, init?: RequestInit) => {
      const next = new URL(input instanceof Request ? input.url : input);
      await this.guard(next);
      return fetch(input, { ...init, redirect: 'error' });
    };
    return new sdk.StreamableHTTPClientTransport(target, { fetch: guardedFetch });
  }

  private async guard(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolServerRefused(`Tool server URL must be http or https, not ${url.protocol}`);
    let addresses: string[];
    try {
      addresses = await this.options.resolver.resolve(url.hostname);
    } catch (error) {
      if (error instanceof LookupFailed) throw new ToolServerUnreachable(`Tool server could not be reached: ${error.message}`);
      throw error;
    }
    const inside = addresses.find((a) => isBlockedAddress(a, { allowLoopback: this.options.allowLoopback }));
    if (inside) throw new ToolServerRefused(`Tool server not permitted: ${url.hostname} resolves to ${inside}, a loopback, private or link-local address${loopbackHint(inside)}`);
  }

  /** Runs `work` within `ms`; a failure or the deadline becomes ToolServerUnreachable (typed refusals pass through). */
  private async withDeadline<T>(name: string, ms: number, work: () => Promise<T>, onTimeout?: () => Promise<void>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void onTimeout?.().catch(() => undefined);
        reject(new ToolServerUnreachable(`Tool server ${name} did not answer within ${ms} ms`));
      }, ms);
    });
    try {
      return await Promise.race([work(), deadline]);
    } catch (error) {
      if (error instanceof ToolServerUnreachable || error instanceof ToolServerRefused || error instanceof ToolServerNotFound) throw error;
      throw new ToolServerUnreachable(`Tool server ${name} failed: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
