import type { McpServer } from '@modelcontextprotocol/server';
import { readGraph } from '../contract/read-graph.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerReadGraph(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, readGraph, {
    run: (input) => memory.graph.read(input),
    text: (page) =>
      [
        ...page.memories.map((m) => `[${m.id}] (${m.status}) ${m.content}`),
        ...page.relations.map(
          (r) => `${r.from_memory_id} -${r.relation_type}-> ${r.to_memory_id} (${r.id})`,
        ),
        page.next_cursor ? `More: cursor ${page.next_cursor}` : 'End of the listing.',
      ].join('\n'),
  });
}
