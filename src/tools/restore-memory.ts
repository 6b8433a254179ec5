import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { restoreMemory } from '../contract/restore-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerRestoreMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, restoreMemory, {
    run: (input) => memory.forgetting.restore(input),
    text: (done) =>
      done.merged_into
        ? `${done.memory_id} has the same content as the live memory ${done.merged_into}: merged into it.`
        : `${done.memory_id} is ${done.status}.`,
  });
}
