import type { Request } from 'express';
import { coderHandlers, type CoderDeps } from '../context.js';
import { agentCard, agents, DEFAULT_AGENT, findAgent, type A2AMessage, type A2ATask, type AgentDefinition } from '../a2a-agents.js';
import type { PlatformState } from '../platform-state.js';
import { RouterUnavailable } from '../router.js';

/** JSON-RPC error codes: the spec's, and A2A's TaskNotFoundError. */
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const TASK_NOT_FOUND = -32001;

/** Where the gateway is reached, as the caller reached it: the cards' interface URLs start so. */
const gatewayUrl = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

class InvalidParams extends Error {}

/** The caller's message from `SendMessage` params (A2A v1.0 JSON), with the text it carries. */
function messageOf(params: Record<string, unknown> | undefined): { message: A2AMessage; text: string } {
  const message = params?.message;
  if (!isRecord(message) || !Array.isArray(message.parts)) throw new InvalidParams('params.message with parts is required');
  const parts = message.parts.filter(isRecord);
  const text = parts
    .map((p) => p.text)
    .filter((t): t is string => typeof t === 'string')
    .join('\n');
  if (!text.trim()) throw new InvalidParams('params.message needs a text part');
  const contextId = typeof message.contextId === 'string' ? message.contextId : undefined;
  return {
    message: { messageId: typeof message.messageId === 'string' && message.messageId ? message.messageId : crypto.randomUUID(), ...(contextId && { contextId }), role: 'ROLE_USER', parts },
    text,
  };
}

export function agentHandlers({ router, switches, clock }: CoderDeps, { tasks }: PlatformState) {
  const requireAgent = (fail: (status: 404, code: undefined, message: string) => never, id: string): AgentDefinition =>
    findAgent(id) ?? fail(404, undefined, `No agent ${id}`);

  /** Runs the agent on the text at once: a task complete with its answer, or failed when the router cannot answer. */
  const run = async (agent: AgentDefinition, owner: string | null, message: A2AMessage, text: string): Promise<A2ATask> => {
    const { taskId, contextId } = tasks.newIds(message.contextId);
    const asked: A2AMessage = { ...message, contextId, taskId };
    const timestamp = new Date(clock.now()).toISOString();
    let task: A2ATask;
    try {
      if (!switches.router) throw new RouterUnavailable('the model router is not initialized');
      const model = agent.model ?? router.models()[0]?.id ?? 'default';
      const answer = await router.complete({ model, messages: [{ role: 'system', content: agent.instructions }, { role: 'user', content: text }] });
      task = {
        id: taskId,
        contextId,
        status: { state: 'TASK_STATE_COMPLETED', timestamp },
        artifacts: [{ artifactId: crypto.randomUUID(), name: 'answer', parts: [{ text: answer.content }] }],
        history: [asked],
      };
    } catch (error) {
      if (!(error instanceof RouterUnavailable)) throw error;
      const reason: A2AMessage = { messageId: crypto.randomUUID(), contextId, taskId, role: 'ROLE_AGENT', parts: [{ text: error.message }] };
      task = { id: taskId, contextId, status: { state: 'TASK_STATE_FAILED', timestamp, message: reason }, artifacts: [], history: [asked] };
    }
    tasks.save(owner, agent.id, task);
    return task;
  };

  return coderHandlers({
    getAgentCard: ({ req }) => ({ status: 200, body: agentCard(findAgent(DEFAULT_AGENT)!, gatewayUrl(req)) }),

    listAgents: ({ req }) => ({
      status: 200,
      body: { agents: agents.map((agent) => ({ id: agent.id, card: agentCard(agent, gatewayUrl(req)) })), count: agents.length },
    }),

    getAgent: ({ params, req, fail }) => ({ status: 200, body: agentCard(requireAgent(fail, params.id), gatewayUrl(req)) }),

    sendAgentTask: async ({ params, body, principal, fail }) => {
      const agent = requireAgent(fail, params.id);
      const id = body.id ?? null;
      const error = (code: number, message: string) => ({ status: 200 as const, body: { jsonrpc: '2.0' as const, id, error: { code, message } } });
      const rpcParams = body.params as Record<string, unknown> | undefined;
      switch (body.method) {
        case 'SendMessage': {
          let asked: ReturnType<typeof messageOf>;
          try {
            asked = messageOf(rpcParams);
          } catch (e) {
            if (e instanceof InvalidParams) return error(INVALID_PARAMS, `Invalid params: ${e.message}`);
            throw e;
          }
          const task = await run(agent, principal.owner, asked.message, asked.text);
          return { status: 200, body: { jsonrpc: '2.0', id, result: { task } } };
        }
        case 'GetTask': {
          const taskId = rpcParams?.id;
          if (typeof taskId !== 'string' || !taskId) return error(INVALID_PARAMS, 'Invalid params: params.id (the task id) is required');
          const task = tasks.find(principal.owner, agent.id, taskId);
          return task ? { status: 200, body: { jsonrpc: '2.0', id, result: task } } : error(TASK_NOT_FOUND, 'Task not found');
        }
        default:
          return error(METHOD_NOT_FOUND, `Method not found: ${body.method} (this agent answers SendMessage and GetTask)`);
      }
    },
  });
}
