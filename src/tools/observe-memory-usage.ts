import type { McpServer } from '@modelcontextprotocol/server';
import { observeMemoryUsage } from '../contract/observe-memory-usage.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerObserveMemoryUsage(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, observeMemoryUsage, {
    run: (input) => memory.writing.observe(input),
    text: (observed) => {
      const n = observed.results.length;
      const cross = observed.results.filter((r) => r.cross_domain).length;
      return (
        `${observed.reinforced ? 'Reinforced' : 'Observed (auto-reinforce is off)'} ${n} memor${n === 1 ? 'y' : 'ies'}` +
        `${cross ? `, ${cross} in a new domain` : ''}` +
        `${observed.not_found.length ? `; not found: ${observed.not_found.join(', ')}` : ''}.`
      );
    },
  });
}
