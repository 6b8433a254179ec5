// Writing an export's lines: to a new file atomically (a temp file beside it at a name nobody can
// guess, fdatasync, link(2) to the new name, which never replaces anything, a link included; the
// folder synced), so a crash or a full disk never leaves half an export under its name; or to
// a stream, waiting when it is full, so a large export does not pile up in memory.

import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, NEW_FILE, syncDir, tempPathFor, writeAll } from '../platform/durable-file.js';
import { UserError } from '../platform/errors.js';

/** Bytes gathered before each write. */
const CHUNK = 1 << 20;

/** Writes `lines` to `file`, which must not exist; resolves with the number of lines. */
export async function writeLinesToFile(
  file: string,
  lines: AsyncIterable<string>,
): Promise<number> {
  const target = path.resolve(file);
  // lstat, not exists: a link to nowhere is a name taken too, and link(2) below would refuse it.
  if (lstatOrUndefined(target) !== undefined) {
    throw new UserError(
      `--out ${target} exists: give a new file name (an export never writes over a file)`,
    );
  }
  const temp = tempPathFor(target, true);
  let fd: number;
  try {
    fd = fs.openSync(temp, NEW_FILE, FILE_MODE);
  } catch (error) {
    throw cannotWrite(target, error);
  }
  let count = 0;
  try {
    let buffer = '';
    for await (const line of lines) {
      buffer += `${line}\n`;
      count++;
      if (buffer.length >= CHUNK) {
        writeAll(fd, buffer);
        buffer = '';
      }
    }
    writeAll(fd, buffer);
    fs.fdatasyncSync(fd);
    fs.closeSync(fd);
    fs.linkSync(temp, target);
    fs.rmSync(temp, { force: true });
    syncDir(path.dirname(target));
    return count;
  } catch (error) {
    try {
      fs.closeSync(fd);
    } catch {
      // closed already
    }
    fs.rmSync(temp, { force: true });
    throw error instanceof UserError ? error : cannotWrite(target, error);
  }
}

/** Writes `lines` to `stream`, waiting for it to drain; resolves with the number of lines. */
export async function writeLinesToStream(
  stream: NodeJS.WritableStream,
  lines: AsyncIterable<string>,
): Promise<number> {
  let count = 0;
  for await (const line of lines) {
    count++;
    if (!stream.write(`${line}\n`)) {
      await new Promise<void>((resolve) => {
        stream.once('drain', resolve);
        stream.once('error', resolve);
      });
    }
  }
  return count;
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

function cannotWrite(target: string, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  const hint =
    code === 'EEXIST'
      ? 'it was made while the export ran: give a new file name'
      : code === 'ENOSPC'
        ? 'the disk is full: free some space, or export elsewhere'
        : `make ${path.dirname(target)} writable, or export elsewhere`;
  return new UserError(`cannot write ${target} (${code}): ${hint}; nothing was written there`);
}
