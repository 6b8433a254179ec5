// Where the OAuth server keeps what oidc-provider makes (clients, grants, codes, tokens,
// interactions, sessions): an interface and two implementations, the data dir's file
// (file-store.ts) and PostgreSQL (pg-store.ts). Every entry is keyed by the SHA-256 of its model
// and id, never by the id: a code or a token is never at rest in clear.
import { createHash } from 'node:crypto';

/** One thing oidc-provider stored, as kept: its id is only in its key. */
export interface StoredEntry {
  /** The oidc-provider model: Client, Grant, AccessToken, RefreshToken, Session, … */
  model: string;
  /** What oidc-provider gave, without its id (`jti`). */
  payload: Record<string, unknown>;
  /** Epoch seconds from which the entry is gone; undefined: kept until removed. */
  expiresAt?: number | undefined;
  /** keyOf('Grant', grantId) of the grant a code or token belongs to. */
  grantKey?: string | undefined;
  /** keyOf(model, uid) of a session or interaction's uid. */
  uidKey?: string | undefined;
  /** Epoch seconds at which a code or refresh token was used. */
  consumedAt?: number | undefined;
  /** Epoch seconds at which a grant's token was last presented. */
  usedAt?: number | undefined;
}

export interface KeyedEntry {
  key: string;
  entry: StoredEntry;
}

/**
 * The store of the OAuth server. Entries past their `expiresAt` (by the store's clock) are
 * never answered, and are dropped at some later write. Shared by every process on the same data
 * dir or database: what one writes, the others read.
 */
export interface OAuthStore {
  get(key: string): Promise<StoredEntry | undefined>;
  findByUid(uidKey: string): Promise<StoredEntry | undefined>;
  put(key: string, entry: StoredEntry): Promise<void>;
  remove(key: string): Promise<void>;
  /** Marks a code or refresh token used, at `at`. */
  consume(key: string, at: number): Promise<void>;
  /** Removes a grant and every code and token of it. */
  removeGrant(grantKey: string): Promise<void>;
  /** The live entries of `model`. */
  list(model: string): Promise<KeyedEntry[]>;
  /** How many live entries `model` has. */
  count(model: string): Promise<number>;
  /** Sets when an entry expires (later only) and when it was used; nothing when it is gone. */
  touch(key: string, change: { expiresAt?: number; usedAt?: number }): Promise<void>;
  /**
   * The entry at `key`, made from `make()` when there is none: processes that start together
   * all end up with the one that was stored first (the signing keys).
   */
  claim(key: string, make: () => StoredEntry): Promise<StoredEntry>;
  close(): Promise<void>;
}

/** The key of `model`'s entry `id`: hex SHA-256 of both, so the id itself is never stored. */
export function keyOf(model: string, id: string): string {
  return createHash('sha256').update(`${model}\0${id}`).digest('hex');
}

/** Whether an entry is still there at `now` (epoch seconds). */
export function live(entry: StoredEntry, now: number): boolean {
  return entry.expiresAt === undefined || entry.expiresAt > now;
}
