import fs from 'node:fs';
import path from 'node:path';

/**
 * Files as mnemo writes them: private to their owner (memories are personal), and on disk before
 * a call answers. A new name is durable only once its folder is synced too, so every function
 * here that makes or replaces an entry syncs the folder after. Everything goes through the `fs`
 * module object, so a test can inject a fault by replacing one of its functions.
 */

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Makes the entries of `dir` (a file made, renamed or removed in it) survive a crash. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot fsync a folder; a rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Writes all of `data` at the descriptor's position, or at `position` of the file. */
export function writeAll(fd: number, data: string | Uint8Array, position?: number): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let at = 0; at < buf.length; ) {
    at += fs.writeSync(fd, buf, at, buf.length - at, position === undefined ? null : position + at);
  }
}

/**
 * The temp file `replaceFile` writes beside `file`: `<file>.<pid>.tmp`, or `.<file>.<pid>.tmp`
 * when `hidden` (a dot file, which the vault index and Obsidian skip). The store removes the
 * leftovers of its logs at start by this name.
 */
function tempPathFor(file: string, hidden = false): string {
  const name = `${path.basename(file)}.${process.pid}.tmp`;
  return path.join(path.dirname(file), hidden ? `.${name}` : name);
}

/**
 * Replaces `file` with `content` (text, or chunks of it, written as they come) so that a reader
 * or a crash sees the old file or the new one, never a mix: a temp file beside it (mode 0600),
 * fsync, rename over `file`, fsync of the folder. When anything fails the temp file is removed
 * and `file` is as it was.
 */
export function replaceFile(
  file: string,
  content: string | Iterable<string | Uint8Array>,
  { hidden = false }: { hidden?: boolean } = {},
): void {
  const temp = tempPathFor(file, hidden);
  try {
    const fd = fs.openSync(temp, 'w', FILE_MODE);
    try {
      for (const chunk of typeof content === 'string' ? [content] : content) writeAll(fd, chunk);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncDir(path.dirname(file));
}

/**
 * Makes `file`, which must be new (`wx`: EEXIST when anything has that name, a link included),
 * with `content`, on disk with its folder. One that could not be written whole is removed again:
 * it was this call's alone.
 */
export function createFile(file: string, content: string): void {
  const fd = fs.openSync(file, 'wx', FILE_MODE);
  let written = false;
  try {
    writeAll(fd, content);
    fs.fdatasyncSync(fd);
    written = true;
  } finally {
    fs.closeSync(fd);
    if (!written) fs.rmSync(file, { force: true });
  }
  syncDir(path.dirname(file));
}

/**
 * Writes `file` in place (made, or emptied first), on disk with its folder. Not atomic: a crash
 * can leave it cut short, so it is for a record whose reader tells a whole one from a cut one
 * (the store's transaction journal, which is JSON) and that only one writer at a time makes.
 */
export function overwriteFile(file: string, content: string): void {
  const fd = fs.openSync(file, 'w', FILE_MODE);
  try {
    writeAll(fd, content);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncDir(path.dirname(file));
}

/**
 * `mkdir -p` with mode 0700, each folder it made durable (its parent synced). Returns the first
 * folder it made, or undefined when `dir` was there already.
 */
export function makeDirs(dir: string): string | undefined {
  const made = fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  for (let d = dir; made !== undefined && d.startsWith(made); d = path.dirname(d)) {
    syncDir(path.dirname(d));
  }
  return made;
}

/** The text of `file`, or undefined when there is no such file; any other failure is thrown. */
export function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
