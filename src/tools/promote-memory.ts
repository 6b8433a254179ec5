import type { McpServer } from '@modelcontextprotocol/server';
import { promoteMemory } from '../contract/promote-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerPromoteMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, promoteMemory, {
    run: (input) => memory.promotion.promote(input),
    text: (done) =>
      done.dry_run
        ? `${done.candidates_found} candidate${done.candidates_found === 1 ? '' : 's'}:\n` +
          done.candidates.map((c) => `- ${c.memory_id}: ${c.reason}`).join('\n')
        : `Promoted ${done.promoted_count}:\n${done.promoted.map((p) => `- ${p.memory_id} -> ${p.path}`).join('\n')}` +
          done.failed.map((f) => `\n- ${f.memory_id} failed: ${f.error}`).join(''),
  });
}
