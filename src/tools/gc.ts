import type { McpServer } from '@modelcontextprotocol/server';
import { gc } from '../contract/gc.js';
import { gcEvent, logToCaller } from '../logging/client-log.js';
import { registerContract, type ToolDeps } from './register.js';
import { undoneLine } from './restore-memory.js';

export function registerGc(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, gc, {
    run: async (input, extra) => {
      const done = await memory.forgetting.gc(input);
      await logToCaller(extra, gcEvent(done));
      return done;
    },
    text: (done) => {
      const verb = done.dry_run ? 'Would' : 'Did';
      const what = done.archived_count
        ? `archive ${done.archived_count}`
        : `forget ${done.removed_count}`;
      const ids = done.superseded_undone?.map((m) => m.memory_id).join(', ');
      const undone =
        done.dry_run && ids
          ? ` Would make current again (what they superseded): ${ids}.`
          : undoneLine(done.superseded_undone);
      return `${verb} ${what} memor${done.total_affected === 1 ? 'y' : 'ies'}.${undone}`;
    },
  });
}
