import type { McpServer } from '@modelcontextprotocol/server';
import { memoryStats } from '../contract/memory-stats.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerMemoryStats(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, memoryStats, {
    run: () => memory.stats.summary(),
    text: (s) =>
      `${s.total} memories (${s.by_status.active} active, ${s.by_status.promoted} promoted, ${s.by_status.archived} archived); ` +
      `${s.danger_zone_count} due for review, ${s.gc_candidates} gc candidates, ${s.promotion_candidates} promotion candidates.`,
  });
}
