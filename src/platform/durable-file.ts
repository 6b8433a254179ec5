import crypto from 'node:crypto';
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

// O_NOFOLLOW is undefined where the platform has no such flag (Windows): 0 leaves it out there.
export const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
/**
 * A file that must be new, never a link: O_EXCL fails on anything at the name, a link to nowhere
 * included, so a link planted there is never written through.
 */
export const NEW_FILE =
  fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | NOFOLLOW;
/**
 * A log opened to read and append (made when missing), refused when the name is a link: the data
 * dir's logs are mnemo's own files, never somewhere a link would send their lines.
 */
export const APPEND_FILE =
  fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | NOFOLLOW;
/** A file opened to read and write in place, refused when the name is a link. */
export const UPDATE_FILE = fs.constants.O_RDWR | NOFOLLOW;
/** A file written in place (made, or emptied first), refused when the name is a link. */
const OVERWRITE = fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_WRONLY | NOFOLLOW;

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
 * The temp file `replaceFile` writes beside `file`: `<file>.<pid>.<random>.tmp`, or
 * `.<file>.<pid>.<random>.tmp` when `hidden` (a dot file, which the vault index and Obsidian
 * skip). The random part makes the name one nobody can plant a link at in advance; the pid is
 * what lets the store tell a leftover of a process gone (storage/jsonl/data-dir.ts sweeps them
 * by this shape).
 */
export function tempPathFor(file: string, hidden = false): string {
  const random = crypto.randomBytes(8).toString('hex');
  const name = `${path.basename(file)}.${process.pid}.${random}.tmp`;
  return path.join(path.dirname(file), hidden ? `.${name}` : name);
}

/**
 * Replaces `file` with `content` (text, or chunks of it, written as they come) so that a reader
 * or a crash sees the old file or the new one, never a mix: a temp file beside it (mode 0600,
 * made new: see NEW_FILE), fsync, rename over `file`, fsync of the folder. When anything fails
 * the temp file is removed and `file` is as it was. A rename replaces a link at `file` rather
 * than writing through it; the folder is the caller's to have checked, and with `within` (a real
 * path) the temp file is checked to be in it once made: a folder swapped for a link since the
 * caller's check fails the call (ELINKOUT) with nothing made or replaced out there.
 */
export function replaceFile(
  file: string,
  content: string | Iterable<string | Uint8Array>,
  { hidden = false, within }: { hidden?: boolean; within?: string } = {},
): void {
  const temp = tempPathFor(file, hidden);
  let made = false;
  try {
    const fd = fs.openSync(temp, NEW_FILE, FILE_MODE);
    made = true;
    try {
      // The temp is where the rename happens: made out of `within`, nothing is renamed.
      if (within !== undefined) checkOpenedWithin(fd, within);
      for (const chunk of typeof content === 'string' ? [content] : content) writeAll(fd, chunk);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    // Only what this call made: whatever else was at the name is not ours to remove.
    if (made) fs.rmSync(temp, { force: true });
    throw error;
  }
  syncDir(path.dirname(file));
}

/** The most one write call of `replaceFileAsync` hands the thread pool. */
const WRITE_SLICE = 8 * 1024 * 1024;

/**
 * `replaceFile` for a large file (a sidecar of hundreds of megabytes) written while the process
 * answers calls: every write, the fsync and the rename run in the thread pool, never holding the
 * event loop. The same guarantee: a crash or a kill at any instant leaves the old file or the new
 * one, and at worst the temp file (`<file>.<pid>.<random>.tmp`), which the data dir's next start
 * removes once this process is gone. `pause`, awaited between chunks, lets a caller yield more.
 */
export async function replaceFileAsync(
  file: string,
  content: Iterable<Uint8Array>,
  { hidden = false }: { hidden?: boolean } = {},
): Promise<void> {
  const temp = tempPathFor(file, hidden);
  let handle: fs.promises.FileHandle | undefined;
  let made = false;
  try {
    handle = await fs.promises.open(temp, NEW_FILE, FILE_MODE);
    made = true;
    for (const chunk of content) {
      for (let at = 0; at < chunk.length; ) {
        const length = Math.min(chunk.length - at, WRITE_SLICE);
        at += (await handle.write(chunk, at, length, null)).bytesWritten;
      }
    }
    await handle.sync();
    const opened = handle;
    handle = undefined;
    await opened.close();
    await fs.promises.rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => {});
    // Only what this call made (the open is `wx`): whatever else was at the name is not ours.
    if (made) await fs.promises.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  syncDir(path.dirname(file));
}

/**
 * Makes `file`, which must be new (`wx`: EEXIST when anything has that name, a link included),
 * with `content`, on disk with its folder. One that could not be written whole is removed again:
 * it was this call's alone. With `within` (see checkOpenedWithin), one made elsewhere is refused.
 */
export function createFile(
  file: string,
  content: string,
  { within }: { within?: string } = {},
): void {
  const fd = fs.openSync(file, NEW_FILE, FILE_MODE);
  if (within !== undefined) {
    try {
      checkOpenedWithin(fd, within);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }
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
 * Throws ELINKOUT, the file removed again, when the file just made at `fd` is not inside the real
 * path `within`: a folder on its way was swapped for a link after the caller checked it (Linux's
 * /proc says where a descriptor leads; elsewhere there is nothing to ask, and the caller's check
 * is what holds). Only for a file this call made new: it is removed by where it really is.
 */
function checkOpenedWithin(fd: number, within: string): void {
  let opened: string;
  try {
    opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return;
  }
  if (!path.isAbsolute(opened)) return;
  const rel = path.relative(within, opened);
  if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return;
  fs.rmSync(opened, { force: true });
  throw Object.assign(new Error('a folder on the way became a link out of its root'), {
    code: 'ELINKOUT',
  });
}

/**
 * Writes `file` in place (made, or emptied first), on disk with its folder. Not atomic: a crash
 * can leave it cut short, so it is for a record whose reader tells a whole one from a cut one
 * (the store's transaction journal, which is JSON) and that only one writer at a time makes.
 * A link at `file` is refused (ELOOP), never written through.
 */
export function overwriteFile(file: string, content: string): void {
  const fd = fs.openSync(file, OVERWRITE, FILE_MODE);
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

/** Opens a file of mnemo's own to read: never through a link, never waiting on a FIFO. */
const READ_OWN = fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The text of `file` (a file mnemo writes: the journal, gateway.json, an export's marker), or
 * undefined when there is no such file. A link at the name is refused (ELOOP), a folder (EISDIR)
 * or a FIFO, socket or device (ENOTREG) too, at once: one planted there is never read through or
 * waited on. A file of more than `maxBytes` is refused with EFBIG, unread. Any other failure is
 * thrown as it comes.
 */
export function readIfExists(
  file: string,
  maxBytes = Number.POSITIVE_INFINITY,
): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, READ_OWN);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) {
      throw Object.assign(new Error(`${file} is a folder`), { code: 'EISDIR' });
    }
    if (!stat.isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
    }
    if (stat.size > maxBytes) {
      throw Object.assign(new Error(`${file} is larger than ${maxBytes} bytes`), { code: 'EFBIG' });
    }
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The text of `file` when it is a regular file of at most `maxBytes`. A FIFO, a device or a
 * folder is refused with code ENOTREG (opened without blocking, so a FIFO cannot hang the
 * caller), a larger file with EFBIG; any other failure is thrown as it comes.
 */
export function readRegularFile(file: string, maxBytes: number): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    }
    if (stat.size > maxBytes) {
      throw Object.assign(new Error(`larger than ${maxBytes} bytes`), { code: 'EFBIG' });
    }
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
