import type { McpServer } from '@modelcontextprotocol/server';
import { clusterMemories } from '../contract/cluster-memories.js';
import { withProgress } from './progress.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerClusterMemories(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, clusterMemories, {
    run: (input, extra) =>
      withProgress(extra, (report) => memory.consolidation.cluster(input, report)),
    text: ({ clusters }) => {
      const merge = clusters.filter((c) => c.suggested_action === 'auto-merge').length;
      return clusters.length === 0
        ? 'No memories close enough to group.'
        : `${clusters.length} clusters (${merge} to merge): ${clusters
            .slice(0, 5)
            .map((c) => `${c.id} ${c.memory_ids.length} memories, cohesion ${c.cohesion}`)
            .join('; ')}`;
    },
  });
}
