import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerTools, type ToolDeps } from './tools/index.js';
import { VERSION } from './version.js';

export type ServerDeps = ToolDeps;

/** An MCP server with every memory tool; transports only connect it. */
export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: 'mnemo', title: 'mnemo memory', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        'mnemo is a memory that fades unless used. search_memory before answering from scratch; save_memory what is worth ' +
        'remembering; call observe_memory_usage with the ids of memories that helped. Results marked review_candidate are ' +
        'about to be forgotten: reinforce them if they are still true and useful.',
    },
  );
  registerTools(server, deps);
  return server;
}
