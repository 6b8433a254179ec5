import type { McpServer } from '@modelcontextprotocol/server';
import { archiveMemory } from '../contract/archive-memory.js';
import { registerContract, type ToolDeps } from './register.js';
import { undoneLine } from './restore-memory.js';

export function registerArchiveMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, archiveMemory, {
    run: (input) => memory.forgetting.archive(input),
    text: (done) => `Archived ${done.memory_id}.${undoneLine(done.superseded_undone)}`,
  });
}
