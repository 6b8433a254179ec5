/**
 * Something the person or the agent can fix: a bad argument, a bad setting, a busy or unusable
 * data dir, a vault path that leaves the vault. The message names the field (or variable) and
 * the fix, and is safe to show as it is: it never holds a secret. Each edge maps it once: the
 * CLI to one stderr line and exit 1 (2 for a usage error), an MCP tool to an `isError` result,
 * HTTP to a 4xx answer (503 for a transient one). Anything else is a fault of mnemo's: logged,
 * and answered with a generic message.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(
    message: string,
    /** The input field or setting the message is about, when there is one. */
    readonly field?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A user error that clears by itself: the same call may work in a moment (a busy lock). */
export class TransientError extends UserError {
  override name = 'TransientError';
}

/**
 * What went wrong, in short, for a log line or a message: the errno code of the error or of the
 * first cause that has one (EIO, ENOSPC), else its message.
 */
export function errorCode(error: unknown): string {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code) return code;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Where JSON.parse stopped in `text`, as ` at line L, column C`, or '' when its message does not
 * say. Only the position is taken from the message: V8 quotes the text around a bad token, and
 * the text may be a file of secrets (tokens, headers).
 */
export function jsonSyntaxWhere(error: unknown, text: string): string {
  const position = /at position (\d{1,12})/.exec(error instanceof Error ? error.message : '')?.[1];
  if (position === undefined) return '';
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return ` at line ${line}, column ${column}`;
}
