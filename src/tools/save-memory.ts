import type { McpServer } from '@modelcontextprotocol/server';
import { saveMemory } from '../contract/save-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerSaveMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, saveMemory, {
    run: (input) => memory.writing.save(input),
    text: (saved) => {
      const similar = saved.similar_to.map((m) => `${m.memory_id} (${m.similarity})`).join(', ');
      return (
        (saved.deduplicated
          ? `Already remembered as ${saved.memory_id}; reinforced it.`
          : `Saved as ${saved.memory_id}.`) + (similar ? ` Close in meaning: ${similar}.` : '')
      );
    },
  });
}
