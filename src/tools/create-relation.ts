import type { McpServer } from '@modelcontextprotocol/server';
import { createRelation } from '../contract/create-relation.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerCreateRelation(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, createRelation, {
    run: (input) => memory.writing.createRelation(input),
    text: (made, input) =>
      `Related ${input.from_memory_id} -${input.relation_type}-> ${input.to_memory_id} (${made.relation_id}).`,
  });
}
