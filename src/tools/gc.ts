import type { McpServer } from '@modelcontextprotocol/server';
import { gc } from '../contract/gc.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerGc(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, gc, {
    run: (input) => memory.forgetting.gc(input),
    text: (done) => {
      const verb = done.dry_run ? 'Would' : 'Did';
      const what = done.archived_count
        ? `archive ${done.archived_count}`
        : `forget ${done.removed_count}`;
      return `${verb} ${what} memor${done.total_affected === 1 ? 'y' : 'ies'}.`;
    },
  });
}
