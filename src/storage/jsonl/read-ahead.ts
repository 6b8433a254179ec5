// A long first read of memories.jsonl on two threads: the default namespace's listeners start
// their work ahead of the read (a worker parses and tokenizes the log), and a memory line that
// work parsed is taken from it instead of being parsed again (`LogReadAhead.take`).
import fs from 'node:fs';
import { DEFAULT_NAMESPACE, type ReadAhead } from '../engine.js';
import type { LiveRecords } from '../live-records.js';
import type { JsonlFile } from './jsonl-file.js';

export interface LogReadAhead extends ReadAhead {
  /**
   * Puts the memory line at `offset` (`length` bytes) from what the work ahead parsed of it and
   * answers true, when it can: a memory of the default namespace that no namespace holds yet,
   * with a listener that takes it so. Otherwise false, and the caller reads the line itself.
   */
  take?: (offset: number, length: number) => boolean;
  /** The length of the memory line at `offset` as the work ahead read it, with `take`. */
  lineAt?: ((offset: number) => number | undefined) | undefined;
}

/**
 * Lets the default namespace's listeners work ahead on the rest of `log`, when at least `minBytes`
 * of it are to read: the file is opened here as the first read would open it, so that they read
 * the same inode. Undefined when none does.
 */
export function startReadAhead(
  log: JsonlFile,
  live: LiveRecords,
  minBytes: number,
): LogReadAhead | undefined {
  const all = live.space(DEFAULT_NAMESPACE).listeners;
  const listeners = all.filter((l) => l.readAhead);
  if (listeners.length === 0) return undefined;
  if (log.inodeRead === -1 && !log.resumeAt(0, 0, () => true)) return undefined;
  const from = log.size();
  const { ino, size } = log.withFd((fd) => fs.fstatSync(fd));
  if (size - from < minBytes) return undefined;
  const span = { path: log.path, ino, from, to: size };
  const aheads = listeners.flatMap((l) => l.readAhead?.(span) ?? []);
  if (aheads.length === 0) return undefined;
  const only = aheads.length === 1 && all.length === 1 ? aheads[0] : undefined;
  const listener = all[0];
  return {
    reached: async (offset) => {
      await Promise.all(aheads.map((a) => a.reached(offset)));
    },
    stop: () => {
      for (const a of aheads) a.stop();
    },
    // Only for the one listener there is: with others, they would need the record.
    take:
      only?.record && listener?.upsertPrepared
        ? (offset, length) => {
            const line = { offset, length };
            const record = only.record?.(line);
            if (!record || live.namespaceOfMemory(record.id) !== undefined) return false;
            live.putPrepared(DEFAULT_NAMESPACE, record, line);
            return true;
          }
        : undefined,
    lineAt:
      only?.record && listener?.upsertPrepared && only.lengthAt
        ? (offset) => only.lengthAt?.(offset)
        : undefined,
  };
}
