// The seeded stdio tool server of the coder stub (an MCP server over stdio): the one command line
// the gateway may start by default (`node server-stubs/coder/tool-servers/notes.mjs`), so a tool
// server can be tried with no setup. Notes live in memory, one process per registration.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'notes', version: '1.0.0' });
const notes = [];

server.registerTool('echo', { description: 'Answers the text it was given.', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));

server.registerTool('add_note', { description: 'Keeps a note; answers how many there are.', inputSchema: { text: z.string().min(1) } }, async ({ text }) => {
  notes.push(text);
  return { content: [{ type: 'text', text: `${notes.length} notes` }], structuredContent: { count: notes.length } };
});

server.registerTool('list_notes', { description: 'The notes kept so far, one per line.' }, async () => ({
  content: [{ type: 'text', text: notes.join('\n') }],
}));

// Lets a client see how the gateway reports a tool server that went away (502).
server.registerTool('exit', { description: 'Ends this tool server process.' }, async () => {
  setImmediate(() => process.exit(0));
  return new Promise(() => {});
});

await server.connect(new StdioServerTransport());
