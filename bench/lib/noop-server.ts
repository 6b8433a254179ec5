// A fixture for the floor (bench/lib/floor.ts): an MCP server over stdio whose one tool does
// nothing, so the round trip of a call to it is what the SDK's client, the pipes and a server's
// protocol handling cost, and nothing of a store. Run as a child process, never imported.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'bench-noop', version: '0.0.0' });
server.registerTool('noop', { description: 'Does nothing and answers at once.' }, async () => ({
  content: [],
}));
await server.connect(new StdioServerTransport());
