import { UserError } from '../platform/errors.js';

/**
 * A request the memory cannot carry out as asked. The message names the field and the fix;
 * MCP tools turn it into an `isError` result, the CLI into a line on stderr.
 */
export class MemoryError extends UserError {
  override name = 'MemoryError';
}

export function notFound(id: string, field = 'memory_id'): MemoryError {
  return new MemoryError(
    `${field} "${id}" is not a known memory: find ids with search_memory, or restore_memory if gc forgot it`,
    field,
  );
}
