import type { McpServer } from '@modelcontextprotocol/server';
import { saveMemory } from '../contract/save-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerSaveMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, saveMemory, {
    run: (input) => memory.writing.save(input),
    text: (saved) => {
      const similar = saved.similar_to.map((m) => `${m.memory_id} (${m.similarity})`).join(', ');
      const named = (list: { memory_id: string; content: string }[]) =>
        list.map((m) => `${m.memory_id} ("${m.content}")`).join(', ');
      return (
        (saved.deduplicated
          ? `Already remembered as ${saved.memory_id}; reinforced it.`
          : `Saved as ${saved.memory_id}.`) +
        (saved.supersedes.length > 0
          ? ` It supersedes ${named(saved.supersedes)}: out of search now.`
          : '') +
        (saved.conflicts.length > 0
          ? ` It may contradict ${named(saved.conflicts)}: both kept, in the review queue (settle_conflict).`
          : '') +
        (similar ? ` Close in meaning: ${similar}.` : '')
      );
    },
  });
}
