// The OAuth store of a data dir: one file, oauth.json (mode 0600), rewritten whole (temp, fsync,
// rename) under its own lock, and read again whenever another process changed it. It holds a few
// hundred entries at most (registrations are capped, codes and tokens expire), so a rewrite a
// change is cheap, and it keeps the data dir's rule: a file is never rewritten in place.
import fs from 'node:fs';
import path from 'node:path';
import { DirLock } from '../platform/dir-lock.js';
import { makeDirs, readIfExists, replaceFile } from '../platform/durable-file.js';
import { UserError } from '../platform/errors.js';
import { type KeyedEntry, live, type OAuthStore, type StoredEntry } from './store.js';

export const OAUTH_FILE = 'oauth.json';

/** Far more than the capped registrations and their grants take. */
const MAX_FILE_BYTES = 32 << 20;

type Entries = Map<string, StoredEntry>;

export class FileOAuthStore implements OAuthStore {
  readonly file: string;
  private readonly lock: DirLock;
  private entries: Entries = new Map();
  /** What the file was when last read: another process's rename changes it. */
  private seen: string | undefined;

  constructor(
    dataDir: string,
    private readonly clock: () => number,
  ) {
    makeDirs(dataDir);
    this.file = path.join(dataDir, OAUTH_FILE);
    this.lock = new DirLock(dataDir, `${this.file}.lock`);
  }

  async get(key: string): Promise<StoredEntry | undefined> {
    const entry = this.current().get(key);
    return entry && live(entry, this.clock()) ? entry : undefined;
  }

  async findByUid(uidKey: string): Promise<StoredEntry | undefined> {
    const now = this.clock();
    for (const entry of this.current().values()) {
      if (entry.uidKey === uidKey && live(entry, now)) return entry;
    }
    return undefined;
  }

  put(key: string, entry: StoredEntry): Promise<void> {
    return this.change((entries) => {
      entries.set(key, entry);
    });
  }

  remove(key: string): Promise<void> {
    return this.change((entries) => {
      entries.delete(key);
    });
  }

  consume(key: string, at: number): Promise<void> {
    return this.change((entries) => {
      const entry = entries.get(key);
      if (entry) entries.set(key, { ...entry, consumedAt: at });
    });
  }

  removeGrant(grantKey: string): Promise<void> {
    return this.change((entries) => {
      for (const [key, entry] of entries) {
        if (key === grantKey || entry.grantKey === grantKey) entries.delete(key);
      }
    });
  }

  async list(model: string): Promise<KeyedEntry[]> {
    const now = this.clock();
    return [...this.current()]
      .filter(([, entry]) => entry.model === model && live(entry, now))
      .map(([key, entry]) => ({ key, entry }));
  }

  async count(model: string): Promise<number> {
    return (await this.list(model)).length;
  }

  touch(key: string, change: { expiresAt?: number; usedAt?: number }): Promise<void> {
    return this.change((entries) => {
      const entry = entries.get(key);
      if (!entry) return;
      const expiresAt =
        change.expiresAt === undefined || entry.expiresAt === undefined
          ? entry.expiresAt
          : Math.max(entry.expiresAt, change.expiresAt);
      entries.set(key, { ...entry, expiresAt, usedAt: change.usedAt ?? entry.usedAt });
    });
  }

  async claim(key: string, make: () => StoredEntry): Promise<StoredEntry> {
    const known = await this.get(key);
    if (known) return known;
    let claimed: StoredEntry | undefined;
    await this.change((entries) => {
      claimed = entries.get(key);
      if (claimed === undefined) {
        claimed = make();
        entries.set(key, claimed);
      }
    });
    return claimed as StoredEntry;
  }

  async close(): Promise<void> {}

  /** The entries as the file holds them now: read again only when it changed. */
  private current(): Entries {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(this.file);
    } catch {
      stat = undefined;
    }
    const mark = stat && `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (mark !== this.seen) {
      this.entries = this.read();
      this.seen = mark;
    }
    return this.entries;
  }

  private read(): Entries {
    let text: string | undefined;
    try {
      text = readIfExists(this.file, MAX_FILE_BYTES);
    } catch (error) {
      throw new UserError(
        `cannot read ${this.file} (${(error as NodeJS.ErrnoException).code ?? 'error'}): move it aside and restart mnemo serve; the OAuth clients then register and ask for consent again`,
      );
    }
    if (text === undefined) return new Map();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UserError(
        `${this.file} is not JSON: move it aside and restart mnemo serve; the OAuth clients then register and ask for consent again`,
      );
    }
    const entries = isObject(parsed) ? (parsed.entries ?? {}) : undefined;
    if (!isObject(entries)) {
      throw new UserError(
        `${this.file} is not an OAuth store mnemo wrote (no object of entries): move it aside and restart mnemo serve; the OAuth clients then register and ask for consent again`,
      );
    }
    // An entry of another shape (a hand edit, a damaged disk) is left out, as an expired one is:
    // its client registers again, or its person is asked again.
    return new Map(
      Object.entries(entries).filter((kv): kv is [string, StoredEntry] => isEntry(kv[1])),
    );
  }

  /** Reads the file afresh under the lock, changes it and writes it whole, expired entries left out. */
  private async change(apply: (entries: Entries) => void): Promise<void> {
    await this.lock.run(() => {
      const entries = this.read();
      apply(entries);
      const now = this.clock();
      for (const [key, entry] of entries) if (!live(entry, now)) entries.delete(key);
      replaceFile(this.file, `${JSON.stringify({ entries: Object.fromEntries(entries) })}\n`);
      this.entries = entries;
      this.seen = undefined;
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isTime = (value: unknown) => value === undefined || Number.isFinite(value);
const isKey = (value: unknown) => value === undefined || typeof value === 'string';

/** Whether `value` is an entry as `change` writes one. */
function isEntry(value: unknown): value is StoredEntry {
  return (
    isObject(value) &&
    typeof value.model === 'string' &&
    isObject(value.payload) &&
    isTime(value.expiresAt) &&
    isTime(value.consumedAt) &&
    isTime(value.usedAt) &&
    isKey(value.grantKey) &&
    isKey(value.uidKey)
  );
}
