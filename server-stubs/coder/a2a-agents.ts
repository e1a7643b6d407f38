/**
 * The gateway's A2A agents (protocol v1.0, JSON-RPC binding) and the tasks they ran. Each agent
 * answers a message through the model router at once, so a task is complete when it is created.
 */
import { randomUUID } from 'node:crypto';
import type { Collection, StateStore } from '../lib/store.js';

export interface AgentDefinition {
  id: string;
  name: string;
  description: string;
  /** the system prompt the router gets before the caller's text */
  instructions: string;
  model: string | undefined;
  skills: Array<{ id: string; name: string; description: string; tags: string[]; examples: string[] }>;
}

export const agents: readonly AgentDefinition[] = [
  {
    id: 'research',
    name: 'Research agent',
    description: 'Plans, searches, reflects and answers a question with the gateway\'s model router.',
    instructions: 'You are a research agent: answer the question with what you know, briefly.',
    model: undefined,
    skills: [{ id: 'research', name: 'Research', description: 'Answers a question.', tags: ['research'], examples: ['What does the gateway do?'] }],
  },
  {
    id: 'coding',
    name: 'Coding agent',
    description: 'Answers programming questions with the gateway\'s model router.',
    instructions: 'You are a coding assistant: answer with code where it helps.',
    model: undefined,
    skills: [{ id: 'coding', name: 'Coding', description: 'Writes and explains code.', tags: ['coding'], examples: ['Write a function that reverses a string.'] }],
  },
];

/** The agent the well-known card describes. */
export const DEFAULT_AGENT = 'research';

export function findAgent(id: string): AgentDefinition | undefined {
  return agents.find((a) => a.id === id);
}

/** The agent's card; `origin` plus base path is where the gateway is reached (from the request). */
export function agentCard(agent: AgentDefinition, gatewayUrl: string) {
  return {
    name: agent.name,
    description: agent.description,
    supportedInterfaces: [{ url: `${gatewayUrl}/agents/${agent.id}/tasks`, protocolBinding: 'JSONRPC' as const, protocolVersion: '1.0' as const }],
    provider: { url: gatewayUrl, organization: 'Coding-assistant gateway' },
    version: '1.0.0',
    capabilities: { streaming: false as const, pushNotifications: false as const },
    // The protocol's JSON form of the card (`{httpAuthSecurityScheme}`), which the SDK reads as such.
    securitySchemes: { bearerAuth: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'The gateway key' } } },
    securityRequirements: [{ schemes: { bearerAuth: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: agent.skills,
  };
}

export interface A2APart {
  text?: string;
  [key: string]: unknown;
}

export interface A2AMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
  parts: A2APart[];
}

export interface A2ATask {
  id: string;
  contextId: string;
  status: { state: 'TASK_STATE_COMPLETED' | 'TASK_STATE_FAILED'; timestamp: string; message?: A2AMessage };
  artifacts: Array<{ artifactId: string; name: string; parts: Array<{ text: string }> }>;
  history: A2AMessage[];
}

/** The tasks of every agent, per key owner (null: a deployment without keys, visible to all). */
export class TaskStore {
  private readonly tasks: Collection<{ owner: string | null; agentId: string; task: A2ATask }>;

  constructor(state: StateStore) {
    this.tasks = state.collection('tasks');
  }

  newIds(contextId: string | undefined) {
    return { taskId: randomUUID(), contextId: contextId || randomUUID() };
  }

  save(owner: string | null, agentId: string, task: A2ATask): void {
    this.tasks.set(task.id, { owner, agentId, task });
  }

  find(owner: string | null, agentId: string, id: string): A2ATask | undefined {
    const entry = this.tasks.get(id);
    if (!entry || entry.agentId !== agentId) return undefined;
    return entry.owner === null || entry.owner === owner ? entry.task : undefined;
  }
}
