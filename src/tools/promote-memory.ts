import type { McpServer } from '@modelcontextprotocol/server';
import { promoteMemory } from '../contract/promote-memory.js';
import { logToCaller, promotionEvent } from '../logging/client-log.js';
import { callerMessage, registerContract, type ToolDeps } from './register.js';

export function registerPromoteMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, promoteMemory, {
    run: async (input, extra) => {
      // A memory whose note could not be written while others were is told as a thrown error
      // is: its message may name the note's file, whose name is a slug of the memory's words.
      const done = await memory.promotion.promote(input, {
        failure: (error) => callerMessage(logger, promoteMemory.name, error),
      });
      await logToCaller(extra, promotionEvent(done));
      return done;
    },
    text: (done) =>
      done.dry_run
        ? `${done.candidates_found} candidate${done.candidates_found === 1 ? '' : 's'}:\n` +
          done.candidates.map((c) => `- ${c.memory_id}: ${c.reason}`).join('\n')
        : `Promoted ${done.promoted_count}:\n${done.promoted.map((p) => `- ${p.memory_id} -> ${p.path}`).join('\n')}` +
          done.failed.map((f) => `\n- ${f.memory_id} failed: ${f.error}`).join(''),
  });
}
