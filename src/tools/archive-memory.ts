import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { archiveMemory } from '../contract/archive-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerArchiveMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, archiveMemory, {
    run: ({ memory_id }) => memory.archive(memory_id),
    text: (done) => `Archived ${done.memory_id}.`,
  });
}
