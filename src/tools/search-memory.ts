import type { McpServer } from '@modelcontextprotocol/server';
import { searchMemory } from '../contract/search-memory.js';
import { registerContract, type ToolDeps } from './register.js';
import { neighbourLines, oneLine, whenWhereLine } from './when-where.js';

export function registerSearchMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, searchMemory, {
    run: (input) => memory.recall.search(input),
    text: (found) => {
      const lines = found.results.map(
        (r, i) =>
          `${i + 1}. [${r.memory_id}] ${oneLine(r.content, 160)} (score ${r.score}, relevance ${r.relevance}${r.review_candidate ? ', review' : ''})\n   ${whenWhereLine(r)}${neighbourLines(r.neighbours)}`,
      );
      return found.results.length === 0
        ? 'No memory matches.'
        : `${found.total} match${found.total === 1 ? '' : 'es'}, page ${found.page}:\n${lines.join('\n')}`;
    },
  });
}
