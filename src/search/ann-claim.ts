// vectors.ann.claim: which process builds the approximate index of a data dir. Building a
// million vectors into the graph takes minutes of a core; two servers on one data dir would each
// build it and each rename its own over the other's. The one that creates the claim (`wx`: only
// one can) builds; the others search exactly and take the file in once it appears. A claim whose
// owner is gone (on this host: its pid no longer runs with the start time it signed; on another
// host: not refreshed for a while, as the builder refreshes it at every batch) is taken over. Two
// processes taking over the same dead claim at once may both build: that costs time, never data
// (the file is written by rename, whole or not at all).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive, isPid } from '../platform/dir-lock.js';
import { NEW_FILE, readIfExists } from '../platform/durable-file.js';
import { startTime } from '../platform/process-start.js';

export const ANN_CLAIM_FILE = 'vectors.ann.claim';
/** A claim from another host not refreshed for this long is taken over (ms). */
export const CLAIM_STALE_MS = 5 * 60_000;
/** A claim is a line of JSON: more than this is not one mnemo wrote. */
const MAX_CLAIM_BYTES = 1024;

interface ClaimOwner {
  pid: number;
  host: string;
  start?: number;
  token: string;
}

export interface AnnClaimOptions {
  /** A claim from another host not refreshed for this long is stale (ms). */
  staleMs?: number;
  /** Wall-clock now, ms (file times are wall-clock). */
  now?: () => number;
  /** Whether a pid runs on this host (tests stand in a dead one). */
  isAlive?: (pid: number) => boolean;
  /** This process's pid and its start time (tests make a second process of one). */
  pid?: number;
  start?: number;
}

export class AnnClaim {
  private readonly file: string;
  private readonly owner: ClaimOwner;
  private held = false;

  constructor(
    dataDir: string,
    private readonly options: AnnClaimOptions = {},
  ) {
    this.file = path.join(dataDir, ANN_CLAIM_FILE);
    const pid = options.pid ?? process.pid;
    const start = options.start ?? startTime(pid);
    this.owner = {
      pid,
      host: os.hostname(),
      ...(start === undefined ? {} : { start }),
      token: randomUUID(),
    };
  }

  get isHeld(): boolean {
    return this.held;
  }

  /** Takes the claim: true when this process is to build (it holds it now, or already did). */
  take(): boolean {
    if (this.held) return true;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = fs.openSync(this.file, NEW_FILE, 0o600);
        try {
          fs.writeSync(fd, JSON.stringify(this.owner));
        } finally {
          fs.closeSync(fd);
        }
        this.held = true;
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (!this.isStale()) return false;
      fs.rmSync(this.file, { force: true });
    }
    return false;
  }

  /** Says the build goes on, for processes on other hosts that cannot see its pid. */
  refresh(): void {
    if (!this.held || !this.isMine()) return;
    const now = new Date(this.now());
    try {
      fs.utimesSync(this.file, now, now);
    } catch {
      // gone: taken over as stale; the build still writes a whole file
    }
  }

  /** Lets the claim go, if it is still this process's. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    if (this.isMine()) fs.rmSync(this.file, { force: true });
  }

  /** Whether another process holds a claim that counts (false: none, or a stale one). */
  heldByOther(): boolean {
    if (this.held) return false;
    return fs.existsSync(this.file) && !this.isStale();
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private read(): ClaimOwner | undefined {
    let text: string | undefined;
    try {
      text = readIfExists(this.file, MAX_CLAIM_BYTES);
    } catch {
      return undefined;
    }
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text) as Partial<ClaimOwner> | null;
      if (
        value &&
        isPid(value.pid) &&
        typeof value.host === 'string' &&
        typeof value.token === 'string'
      ) {
        return value as ClaimOwner;
      }
    } catch {
      // not JSON: judged by its age below
    }
    return undefined;
  }

  private isMine(): boolean {
    return this.read()?.token === this.owner.token;
  }

  private isStale(): boolean {
    const stat = fs.statSync(this.file, { throwIfNoEntry: false });
    if (!stat) return true;
    const owner = this.read();
    if (owner && owner.host === this.owner.host) {
      const alive = (this.options.isAlive ?? isAlive)(owner.pid);
      if (!alive) return true;
      // A later process given the same pid is not the owner.
      const start = owner.start === undefined ? undefined : startTime(owner.pid);
      return start !== undefined && start !== owner.start;
    }
    return this.now() - stat.mtimeMs > (this.options.staleMs ?? CLAIM_STALE_MS);
  }
}
