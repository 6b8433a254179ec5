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
 * Where JSON.parse stopped, as an index into the text it parsed, or undefined when its message
 * does not say. Only the position is taken from the message: V8 quotes the text around a bad
 * token, and the text may be a file of secrets (tokens, headers) or a memory.
 */
export function jsonSyntaxPosition(error: unknown): number | undefined {
  const position = /at position (\d{1,12})/.exec(error instanceof Error ? error.message : '')?.[1];
  return position === undefined ? undefined : Number(position);
}

/**
 * Where JSON.parse stopped in `text`, as ` at line L, column C`, or '' when its message does not
 * say (jsonSyntaxPosition: nothing of the text is taken from the message).
 */
export function jsonSyntaxWhere(error: unknown, text: string): string {
  const position = jsonSyntaxPosition(error);
  if (position === undefined) return '';
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return ` at line ${line}, column ${column}`;
}

/**
 * Where an absolute path starts in a message: after the start, white space, a quote, `(`, `[`,
 * `=` or `,`, a `/` or a Windows drive. Only the start is matched, so the test is linear however
 * long the message, and a path with spaces in it (`/home/a/My Vault/...`) is caught as well.
 */
const ABSOLUTE_PATH = /(?:^|[\s"'`([=,])(?:\/|[A-Za-z]:[\\/])/;

/**
 * A UserError's message for a caller on the other side of a connection (a tool result, a
 * resource, an HTTP answer): as it is, unless it names an absolute path. Such a message is for
 * the person at the machine (the data dir, the vault, a note, whose name is a slug of its
 * content); the remote caller gets what failed and where to look instead, and `hidden` is true
 * (the edge logs that it hid one).
 */
const TRAILING = new Set([' ', '\t', '\n', '\r', '"', "'", '`', '(', '[', '=', ',', ':']);
const PREPOSITIONS = new Set(['at', 'in', 'of', 'to', 'from', 'for', 'on', 'names']);

/** What an edge logs when it hid a message: the note paths in it stay out of the log too. */
export const HIDDEN_PATH_LOG =
  'a call was refused with a message naming a file of the server, shown to the caller without it: the same call from the mnemo CLI shows the file';

export function remoteMessage(error: UserError): { message: string; hidden: boolean } {
  const at = ABSOLUTE_PATH.exec(error.message);
  if (at === null) return { message: error.message, hidden: false };
  // What failed, as the message began to say it: "cannot write to the vault at /v/..." gives
  // "cannot write to the vault". The words are mnemo's own, before any path.
  let said = error.message.slice(0, at.index);
  // A loop, not a regex anchored at the end: that one is quadratic on a long run of spaces.
  let end = said.length;
  while (end > 0 && TRAILING.has(said[end - 1] as string)) end--;
  said = said.slice(0, end);
  const last = said.lastIndexOf(' ');
  if (last !== -1 && PREPOSITIONS.has(said.slice(last + 1))) said = said.slice(0, last).trimEnd();
  const what = said === '' ? error.name : `${said} (${error.name})`;
  const message =
    error instanceof TransientError
      ? `${what}: a file of the server is busy; retry in a moment (its operator finds which in its log)`
      : `${what}: a file or folder of the server could not be used; its operator finds which, and the fix, in its log`;
  return { message, hidden: true };
}
