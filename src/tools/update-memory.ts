import type { McpServer } from '@modelcontextprotocol/server';
import { updateMemory } from '../contract/update-memory.js';
import { registerContract, type ToolDeps } from './register.js';
import { noteLine, undoneLine } from './restore-memory.js';

export function registerUpdateMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, updateMemory, {
    run: (input) => memory.editing.update(input),
    text: (done) =>
      `Updated ${done.memory_id}: version ${done.version} is current, ${done.version - 1} kept.${noteLine(done.note)}` +
      undoneLine(done.superseded_undone),
  });
}
