import type { McpServer } from '@modelcontextprotocol/server';
import { settleConflict } from '../contract/settle-conflict.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerSettleConflict(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, settleConflict, {
    run: (input) => memory.conflicts.settle(input),
    text: (done) => {
      switch (done.keep) {
        case 'both':
          return `Settled: both ${done.kept.join(' and ')} hold; the pair left the review queue.`;
        case 'merge':
          return `Settled: merged into ${done.memory_id}; ${done.archived.join(' and ')} archived.`;
        default:
          return `Settled: ${done.kept.join(', ')} holds; ${done.superseded.join(', ')} is superseded by it (restore_memory undoes).`;
      }
    },
  });
}
