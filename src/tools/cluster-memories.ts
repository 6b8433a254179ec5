import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { clusterMemories } from '../contract/cluster-memories.js';
import { progressReporter } from './progress.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerClusterMemories(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, clusterMemories, {
    run: async (input, extra) => {
      const progress = progressReporter(extra);
      const found = await memory.consolidation.cluster(input, progress.report);
      await progress.flush();
      return found;
    },
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
