import type { McpServer } from '@modelcontextprotocol/server';
import { searchUnified } from '../contract/search-unified.js';
import { registerContract, type ToolDeps } from './register.js';
import { neighbourLines, whenWhereLine } from './when-where.js';

export function registerSearchUnified(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, searchUnified, {
    run: (input) => memory.recall.searchUnified(input),
    text: (found) => {
      const lines = found.results.map((r, i) => {
        const when = whenWhereLine({
          date: r.date,
          ago: r.ago,
          source: r.meta_source,
          context: r.meta_context,
        });
        return `${i + 1}. [${r.source}${r.path ? ` ${r.path}` : ''}${r.memory_id ? ` ${r.memory_id}` : ''}] ${r.title} (score ${r.score})${when ? `\n   ${when}` : ''}${neighbourLines(r.neighbours)}`;
      });
      return found.results.length === 0
        ? 'Nothing matches.'
        : `${found.total} match${found.total === 1 ? '' : 'es'}:\n${lines.join('\n')}`;
    },
  });
}
