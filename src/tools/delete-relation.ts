import type { McpServer } from '@modelcontextprotocol/server';
import { deleteRelation } from '../contract/delete-relation.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerDeleteRelation(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, deleteRelation, {
    run: (input) => memory.writing.deleteRelation(input),
    text: (done) => `Deleted relation ${done.relation_id}.`,
  });
}
