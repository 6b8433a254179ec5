import type { McpServer } from '@modelcontextprotocol/server';
import { deleteMemory } from '../contract/delete-memory.js';
import { registerContract, type ToolDeps } from './register.js';
import { undoneLine } from './restore-memory.js';

export function registerDeleteMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, deleteMemory, {
    run: (input) => memory.forgetting.delete(input),
    text: (done) =>
      `Deleted ${done.memory_id} (recoverable with restore_memory).${undoneLine(done.superseded_undone)}`,
  });
}
