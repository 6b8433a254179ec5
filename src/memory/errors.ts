import { UserError } from '../platform/errors.js';

/**
 * A request the memory cannot carry out as asked. The message names the field and the fix;
 * MCP tools turn it into an `isError` result, the CLI into a line on stderr.
 */
export class MemoryError extends UserError {
  override name = 'MemoryError';
}

export function notFound(id: string, field = 'memory_id'): MemoryError {
  const which = quotable(id) ? `${field} "${id}"` : `the ${field} given`;
  return new MemoryError(
    `${which} is not a known memory: find ids with search_memory, or restore_memory if gc forgot it`,
    field,
  );
}

/**
 * Whether an unknown id is quoted back: not one with a slash or a backslash (quoted, it reads as a
 * path of the server, and the whole message is hidden as one: remoteMessage), nor a long one.
 */
function quotable(id: string): boolean {
  return id.length <= 100 && !id.includes('/') && !id.includes('\\');
}
