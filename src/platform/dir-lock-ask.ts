// <lock>.wait: how a process that finds a folder's lock held asks its holder to let go.
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, NEW_FILE } from './durable-file.js';

/**
 * A request to a holder that keeps the lock counts while it is this recent (ms): a waiter renews
 * it at every try (at most 50 ms apart), and one that gave up or died stops counting soon.
 */
const ASK_FRESH_MS = 250;

/**
 * Filesystems where another host may ask for the lock: inotify does not see their remote changes,
 * so a holder there is never told at once and keeps the lock only briefly (statfs f_type).
 */
const REMOTE_FILESYSTEMS = new Set([
  0x6969, // NFS
  0xff534d42, // CIFS
  0xfe534d42, // SMB2
  0x517b, // SMB
  0x65735546, // FUSE (sshfs and the like)
  0x564c, // NCP
  0x01021997, // 9P
  0x47504653, // GPFS
  0x0bd00bd0, // Lustre
  0x73757245, // Coda
  0x6b414653, // AFS
]);

/** Ends a watch: the holder stops listening for requests. */
export type StopWatch = () => void;

/**
 * `<lock>.wait`: how a process that finds the lock held asks its holder to let go. The waiter makes
 * the file, or renews its time, at each try; a holder that keeps the lock between runs watches the
 * folder for it, so that it lets go within a turn of its event loop, however long it would keep it.
 */
export class LockAsk {
  readonly path: string;
  private readonly name: string;

  constructor(
    private readonly dir: string,
    lockPath: string,
  ) {
    this.path = `${lockPath}.wait`;
    this.name = path.basename(this.path);
  }

  /** Whether a waiter asks for the lock now. */
  asked(): boolean {
    const stat = fs.lstatSync(this.path, { throwIfNoEntry: false });
    // Against the wall clock, as file times are. Either way: a clock set back must not make an old
    // request count for long.
    return stat !== undefined && Math.abs(Date.now() - stat.mtimeMs) < ASK_FRESH_MS;
  }

  /** Asks the holder to let go: the file made, or its time renewed (a change a watch sees). */
  ask(): void {
    const now = new Date();
    try {
      fs.lutimesSync(this.path, now, now);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    }
    try {
      fs.closeSync(fs.openSync(this.path, NEW_FILE, FILE_MODE));
    } catch {
      // Made meanwhile, or the folder cannot be written: a holder still lets go once idle.
    }
  }

  /** The request this process made is granted. */
  withdraw(): void {
    fs.rmSync(this.path, { force: true });
  }

  /**
   * Calls `onAsk(false)` when a request may have come (the folder's entry for it changed), and
   * `onAsk(true)` when the watch broke and can no longer tell (then the holder lets go). Undefined
   * when no watch can be set up, or one would not see every waiter (a remote filesystem): the
   * holder then must not keep the lock long. The watch never keeps the process alive.
   */
  watch(onAsk: (broken: boolean) => void): StopWatch | undefined {
    if (isRemote(this.dir)) return undefined;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(this.dir, { persistent: false }, (_event, file) => {
        // The holder's own appends change the folder too; only the request matters.
        if (file === null || file === this.name) onAsk(false);
      });
    } catch {
      return undefined;
    }
    // A watch that breaks (the folder removed) can no longer tell.
    watcher.on('error', () => {
      watcher.close();
      onAsk(true);
    });
    return () => watcher.close();
  }
}

function isRemote(dir: string): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return REMOTE_FILESYSTEMS.has(fs.statfsSync(dir).type);
  } catch {
    return true;
  }
}
