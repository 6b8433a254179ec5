import type { McpServer } from '@modelcontextprotocol/server';
import { touchMemory } from '../contract/touch-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerTouchMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, touchMemory, {
    run: (input) => memory.writing.touch(input),
    text: (touched) =>
      `Reinforced ${touched.memory_id}: score ${touched.old_score} -> ${touched.new_score}, ${touched.use_count} uses, strength ${touched.strength}.`,
  });
}
