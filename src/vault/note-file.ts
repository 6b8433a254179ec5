// The one way mnemo reads a note from a folder it does not own (the vault, an import folder):
// never through a link (nor a hard link: a file with a second name), never a FIFO or device,
// never more than MAX_NOTE_BYTES.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { isInside, toVaultPath } from './paths.js';

/** What a note may be at most: a note, not a data dump (mnemo://vault's cap since it has one). */
export const MAX_NOTE_BYTES = 1024 * 1024;

/** Why a note was not read. */
export type NoteSkip =
  /** Nothing there (or a folder on the way is missing). */
  | 'missing'
  /** Not a regular file: a folder, a FIFO, a socket, a device. */
  | 'not-a-file'
  /** The note, or a folder on its way, is a link that leaves the root, or the note is a link. */
  | 'link'
  /** The note has a second name (a hard link): where it really lives is not known. */
  | 'hard-link'
  | 'too-large'
  /** Any other failure of the file system (permissions, I/O): the error's code. */
  | 'unreadable';

export type NoteFile =
  | {
      ok: true;
      text: string;
      /**
       * Where the note really is: its path from the root's real path, forward slashes, every
       * link on the way resolved (a folder link inside the root may lead to another folder of
       * it: a caller that keeps folders apart checks this, not the path it asked for).
       */
      path: string;
    }
  | { ok: false; why: NoteSkip; code?: string };

// O_NONBLOCK: opening a FIFO for reading waits for a writer without it (the scan and the page
// hung, and SIGTERM could not end the process). O_NOFOLLOW: the note itself is never a link.
// Both are 0 where the platform lacks them (Windows has neither FIFOs nor such links).
const OPEN_FLAGS =
  fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads the note at `relative` (a path such as `mnemo/kitten.md`) inside `root`. The folder that
 * holds it is resolved (links and all) and must be inside `root`'s real path; the note is then
 * opened there without following a link, checked with fstat to be a regular file of at most
 * MAX_NOTE_BYTES, and read from that descriptor, so what was checked is what is read.
 */
export function readNoteFile(
  root: string,
  relative: string,
  // A test gives one that answers as before a swap, to check what the open itself catches.
  realpath: (p: string) => string = fs.realpathSync.native,
): NoteFile {
  const located = locate(root, relative, realpath);
  if (!located.ok) return located;
  let fd: number;
  try {
    fd = fs.openSync(located.file, OPEN_FLAGS);
  } catch (error) {
    return failure(error);
  }
  try {
    const opened = readOpenedPath(() => fs.readlinkSync(`/proc/self/fd/${fd}`));
    if (!openedInside(opened, located)) return { ok: false, why: 'link' };
    const at = realVaultPath(opened, located);
    const stat = fs.fstatSync(fd);
    const refused = refusal(stat);
    if (refused) return refused;
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, MAX_NOTE_BYTES) + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      // Grown since fstat, past the cap: refused as if it had been that large.
      if (length > MAX_NOTE_BYTES) return { ok: false, why: 'too-large' };
      if (length === buffer.length) return readRest(fd, buffer, length, at);
    }
    return { ok: true, text: buffer.toString('utf8', 0, length), path: at };
  } catch (error) {
    return failure(error);
  } finally {
    fs.closeSync(fd);
  }
}

/** `readNoteFile`, with the file system's calls off the event loop. */
export async function readNoteFileAsync(root: string, relative: string): Promise<NoteFile> {
  const located = await locateAsync(root, relative);
  if (!located.ok) return located;
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(located.file, OPEN_FLAGS);
  } catch (error) {
    return failure(error);
  }
  try {
    const opened = await fs.promises.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (!openedInside(opened, located)) return { ok: false, why: 'link' };
    const at = realVaultPath(opened, located);
    const stat = await handle.stat();
    const refused = refusal(stat);
    if (refused) return refused;
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(64 * 1024, MAX_NOTE_BYTES + 1 - length));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      length += bytesRead;
      if (length > MAX_NOTE_BYTES) return { ok: false, why: 'too-large' };
    }
    return { ok: true, text: Buffer.concat(chunks, length).toString('utf8'), path: at };
  } catch (error) {
    return failure(error);
  } finally {
    await handle.close();
  }
}

/**
 * A short hash of a note's path, for a log line: the path is a slug of a memory's content, or a
 * person's title, and never goes to the log.
 */
export function noteHash(relative: string): string {
  return createHash('sha256').update(relative).digest('hex').slice(0, 12);
}

/** The one log line of a note that was skipped: its hash or memory id, why; never its path. */
export function logSkippedNote(
  logger: Pick<Logger, 'warn'>,
  relative: string,
  file: Extract<NoteFile, { ok: false }>,
  memoryId?: string,
): void {
  logger.warn(
    {
      ...(memoryId ? { memory_id: memoryId } : { note: noteHash(relative) }),
      why: file.why,
      ...(file.code ? { err: file.code } : {}),
    },
    'note skipped',
  );
}

type Located = { ok: true; file: string; realRoot: string } | Extract<NoteFile, { ok: false }>;

/**
 * Where the descriptor really leads, where the system says (Linux's /proc): a folder on the way
 * swapped for a link between the check and the open is caught here. Undefined elsewhere.
 */
function readOpenedPath(readlink: () => string): string | undefined {
  try {
    return readlink();
  } catch {
    return undefined;
  }
}

function openedInside(opened: string | undefined, located: { realRoot: string }): boolean {
  return opened === undefined || !path.isAbsolute(opened) || isInside(located.realRoot, opened);
}

/** The opened file's path from the real root: where the system says, else where it was found. */
function realVaultPath(
  opened: string | undefined,
  located: { file: string; realRoot: string },
): string {
  const real = opened !== undefined && path.isAbsolute(opened) ? opened : located.file;
  return toVaultPath(located.realRoot, real);
}

function locate(root: string, relative: string, realpath: (p: string) => string): Located {
  const target = inRoot(root, relative);
  if (target === undefined) return { ok: false, why: 'link' };
  try {
    const realRoot = realpath(root);
    const realFolder = realpath(path.dirname(target));
    if (!isInside(realRoot, realFolder)) return { ok: false, why: 'link' };
    return { ok: true, file: path.join(realFolder, path.basename(target)), realRoot };
  } catch (error) {
    return failure(error);
  }
}

async function locateAsync(root: string, relative: string): Promise<Located> {
  const target = inRoot(root, relative);
  if (target === undefined) return { ok: false, why: 'link' };
  try {
    const [realRoot, realFolder] = await Promise.all([
      fs.promises.realpath(root),
      fs.promises.realpath(path.dirname(target)),
    ]);
    if (!isInside(realRoot, realFolder)) return { ok: false, why: 'link' };
    return { ok: true, file: path.join(realFolder, path.basename(target)), realRoot };
  } catch (error) {
    return failure(error);
  }
}

/** The absolute path of `relative` when it names something strictly inside `root`. */
function inRoot(root: string, relative: string): string | undefined {
  const base = path.resolve(root);
  const target = path.resolve(base, relative);
  return path.isAbsolute(relative) || target === base || !isInside(base, target)
    ? undefined
    : target;
}

/**
 * A note mnemo reads is a regular file of at most MAX_NOTE_BYTES with one name. A second name (a
 * hard link) is where it may really live: a secret of the person's, linked into a shared vault by
 * whoever can write there (macOS and a system without protected_hardlinks let anyone link a file
 * they cannot read), is no note of the vault. Obsidian, sync tools and mnemo write notes with
 * one name, and a rewrite replaces the name, so a note linked by hand is skipped with its log line.
 */
function refusal(stat: fs.Stats): Extract<NoteFile, { ok: false }> | undefined {
  if (!stat.isFile()) return { ok: false, why: 'not-a-file' };
  if (stat.nlink > 1) return { ok: false, why: 'hard-link' };
  if (stat.size > MAX_NOTE_BYTES) return { ok: false, why: 'too-large' };
  return undefined;
}

/** The file grew to fill the buffer: read on, up to the cap. */
function readRest(fd: number, first: Buffer, length: number, at: string): NoteFile {
  const buffer = Buffer.allocUnsafe(MAX_NOTE_BYTES + 1);
  first.copy(buffer, 0, 0, length);
  let total = length;
  for (;;) {
    const n = fs.readSync(fd, buffer, total, buffer.length - total, null);
    if (n === 0) break;
    total += n;
    if (total > MAX_NOTE_BYTES) return { ok: false, why: 'too-large' };
  }
  return { ok: true, text: buffer.toString('utf8', 0, total), path: at };
}

function failure(error: unknown): Extract<NoteFile, { ok: false }> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, why: 'missing', code };
  // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD).
  if (code === 'ELOOP' || code === 'EMLINK') return { ok: false, why: 'link', code };
  if (code === 'EISDIR') return { ok: false, why: 'not-a-file', code };
  return { ok: false, why: 'unreadable', ...(code ? { code } : {}) };
}
