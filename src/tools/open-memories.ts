import type { McpServer } from '@modelcontextprotocol/server';
import { openMemories } from '../contract/open-memories.js';
import { registerContract, type ToolDeps } from './register.js';
import { neighbourLines, whenWhereLine } from './when-where.js';

export function registerOpenMemories(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, openMemories, {
    run: (input) => memory.recall.open(input),
    text: (opened) =>
      [
        ...opened.memories.map(
          (m) =>
            `[${m.id}] (${m.status}, score ${m.score}) ${whenWhereLine({ date: m.date, ago: m.ago, source: m.meta.source ?? undefined, context: m.meta.context ?? undefined })}${neighbourLines(m.neighbours)}\n${m.content}`,
        ),
        ...(opened.not_found.length ? [`Not found: ${opened.not_found.join(', ')}`] : []),
      ].join('\n\n') || 'Nothing to open.',
  });
}
