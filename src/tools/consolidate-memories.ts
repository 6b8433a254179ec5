import type { McpServer } from '@modelcontextprotocol/server';
import { consolidateMemories } from '../contract/consolidate-memories.js';
import { withProgress } from './progress.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerConsolidateMemories(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, consolidateMemories, {
    run: (input, extra) =>
      withProgress(extra, (report) => memory.consolidation.consolidate(input, report)),
    text: (result) => {
      const n = result.consolidations.length;
      if (n === 0) return 'No cluster to consolidate.';
      if (result.mode === 'preview') {
        return `Preview of ${n} merge(s); nothing changed. Call again with mode: "apply" to merge.`;
      }
      return result.mode === 'link'
        ? `Linked the members of ${n} cluster(s).`
        : `Merged ${n} cluster(s) into ${result.consolidations.map((c) => c.memory_id).join(', ')}; members archived.`;
    },
  });
}
