// How a replica follows the others' writes: LISTEN on a connection of its own, a catch-up when a
// change it has not applied is heard of, and reads that wait for what was heard before them.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from 'pino';
import { clientConfig, databaseError } from './database.js';
import { pgDriver } from './driver.js';
import { CHANNEL, noticeOf } from './schema.js';

/** How long a read waits at most for the changes heard of before it. */
const READ_WAIT_MS = 1000;
/** The longest wait before the listener connects again: the database back is seen that soon. */
const RECONNECT_MAX_MS = 500;

export interface FollowerOptions {
  url: string;
  logger: Logger;
  /** First wait before the listener connects again (doubles up to RECONNECT_MAX_MS). */
  reconnectMs?: number | undefined;
  /** Reads and applies the changes of namespace `ns` after the version held. */
  catchUp(ns: string): Promise<void>;
  /** The version of namespace `ns` held; undefined when this replica does not hold it. */
  applied(ns: string): number | undefined;
  /**
   * The database's version of each namespace held, or of every one where all are held (after
   * the listener was away).
   */
  versions(): Promise<Map<string, number>>;
  /** A namespace not held was written (a replica that holds them all loads it). */
  unheld?(ns: string): void;
}

/** The catch-up of one namespace under way, and whether another is to follow it. */
interface Run {
  again: boolean;
}

/**
 * Follows the namespaces the replica holds: a notification names a namespace and its version,
 * and a namespace held at an older one is caught up. Reads of a namespace wait (a moment at
 * most) for the changes heard of before them, but not while its catch-up fails or nobody
 * listens: then they answer what the replica holds at once.
 */
export class Follower {
  /** The highest version a notification named, by namespace held. */
  private readonly heard = new Map<string, number>();
  /** Reads waiting for the changes heard of before they began. */
  private waiters: { ns: string; target: number; resolve: () => void }[] = [];
  private readonly runs = new Map<string, Run>();
  /** Namespaces whose last catch-up failed: their reads do not wait until one succeeds. */
  private readonly failing = new Set<string>();
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private readonly closing = new AbortController();
  private nap: AbortController | undefined;

  constructor(private readonly options: FollowerOptions) {}

  /**
   * Connects and LISTENs; resolves once it does (no change committed after that is missed), and
   * goes on in the background, connecting again whenever the connection is lost. Rejects when
   * the first connection fails.
   */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      void this.follow(resolve, reject);
    });
  }

  /** The server process of the listening connection (for tests that cut it). */
  get pid(): number | undefined {
    return (this.listener as { processID?: number } | undefined)?.processID;
  }

  /** Whether a connection listens now (else the replica answers what it holds). */
  get following(): boolean {
    return this.listening;
  }

  /**
   * Resolves once the changes of `ns` heard of before this call are applied, at once when they
   * are. Only those: under a steady stream of writes, waiting for the catch-ups to end would wait
   * for a lull. Never longer than a moment, and not at all while the database is away: a read may
   * be a little stale, it must not hang.
   */
  caughtUp(ns: string): Promise<void> {
    const applied = this.options.applied(ns);
    const target = this.heard.get(ns) ?? 0;
    if (applied === undefined || applied >= target) return Promise.resolve();
    if (this.failing.has(ns) || !this.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ ns, target, resolve });
      setTimeout(resolve, READ_WAIT_MS).unref();
    });
  }

  /** Namespace `ns` is held at an older version than a notification named. */
  behind(ns: string): boolean {
    const applied = this.options.applied(ns);
    return applied !== undefined && applied < (this.heard.get(ns) ?? 0);
  }

  /** Namespace `ns` is held at a newer version: the reads waiting for it go on. */
  advanced(ns: string): void {
    if (this.waiters.length === 0) return;
    const applied = this.options.applied(ns) ?? Number.POSITIVE_INFINITY;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.ns === ns && w.target <= applied) w.resolve();
      else this.waiters.push(w);
    }
  }

  /**
   * The database has namespace `ns` at `version` (a notification, a load that found it newer
   * than its snapshot): caught up if this replica holds it older.
   */
  heardOf(ns: string, version: number): void {
    const applied = this.options.applied(ns);
    if (applied === undefined) {
      this.options.unheld?.(ns);
      return;
    }
    if (version > (this.heard.get(ns) ?? 0)) this.heard.set(ns, version);
    if (version > applied) this.schedule(ns);
  }

  /** Namespace `ns` is no longer held. */
  forget(ns: string): void {
    this.heard.delete(ns);
    this.failing.delete(ns);
    this.release(ns);
  }

  /** The database answered a query: a listener waiting to connect again tries at once. */
  wake(): void {
    if (!this.listening) this.nap?.abort();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    this.release();
    await this.listener?.end().catch(() => {});
  }

  /**
   * After a catch-up begun after every notification heard: it read every change committed, so
   * what was heard beyond what it applied was never made. Any role that can connect to the
   * database may NOTIFY mnemo's channel, and a version no change reaches held every read of the
   * namespace READ_WAIT_MS, for good.
   */
  private believeApplied(ns: string): void {
    const applied = this.options.applied(ns);
    if (applied === undefined) return;
    if ((this.heard.get(ns) ?? 0) <= applied) return;
    this.heard.set(ns, applied);
    this.release(ns);
  }

  /** The reads waiting (on `ns`, or all) go on with what is applied. */
  private release(ns?: string): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (ns === undefined || w.ns === ns) w.resolve();
      else this.waiters.push(w);
    }
  }

  /** Asks for a catch-up of `ns`, once at a time; the next one after it when asked meanwhile. */
  private schedule(ns: string): void {
    if (this.closed) return;
    const running = this.runs.get(ns);
    if (running) {
      running.again = true;
      return;
    }
    const state: Run = { again: false };
    this.runs.set(ns, state);
    const run = async (): Promise<void> => {
      try {
        await this.options.catchUp(ns);
        this.failing.delete(ns);
        if (!state.again) this.believeApplied(ns);
      } catch (error) {
        // Reads go on with what is applied rather than wait for the database to be back.
        this.failing.add(ns);
        this.release(ns);
        if (!this.closed) {
          this.options.logger.warn(
            { err: (error as Error).message, namespace: ns },
            'cannot read the other replicas’ changes: tried again at the next one',
          );
        }
      }
      if (state.again && !this.closed) {
        state.again = false;
        await run();
      }
    };
    void run().finally(() => this.runs.delete(ns));
  }

  /** After a time without listening: the namespaces held that the database has newer. */
  private async resync(): Promise<void> {
    try {
      for (const [ns, version] of await this.options.versions()) this.heardOf(ns, version);
    } catch (error) {
      if (!this.closed) {
        this.options.logger.warn(
          { err: (error as Error).message },
          'cannot read which namespaces changed: tried again at the next connection',
        );
      }
    }
  }

  private async follow(listening: () => void, failed: (error: unknown) => void): Promise<void> {
    const { url, logger } = this.options;
    let wait = this.options.reconnectMs ?? 250;
    let first = true;
    while (!this.closed) {
      const client = new (pgDriver().Client)(
        clientConfig(url, { applicationName: 'mnemo listener' }),
      );
      const lost = new Promise<Error | undefined>((resolve) => {
        client.on('error', resolve);
        client.on('end', () => resolve(undefined));
      });
      try {
        await client.connect();
        const schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema'))
          .rows[0]?.schema as string;
        client.on('notification', (message) => {
          const notice = noticeOf(message.payload ?? '', schema);
          if (notice) this.heardOf(notice.ns, notice.version);
        });
        await client.query(`LISTEN ${CHANNEL}`);
        this.listener = client;
        if (this.closed) break;
        first = false;
        this.listening = true;
        listening();
        wait = this.options.reconnectMs ?? 250;
        // What was written while no one listened.
        void this.resync();
        const error = await lost;
        this.listening = false;
        if (this.closed) break;
        logger.warn(
          { err: error?.message ?? 'ended' },
          'lost the connection that follows the other replicas: connecting again',
        );
      } catch (error) {
        if (first) {
          failed(error);
          break;
        }
        if (this.closed) break;
        logger.warn(
          { err: databaseError(error, url).message },
          'cannot follow the other replicas: trying again',
        );
      } finally {
        client.removeAllListeners('notification');
        await client.end().catch(() => {});
      }
      this.listening = false;
      this.nap = new AbortController();
      try {
        await sleep(wait, undefined, {
          signal: AbortSignal.any([this.closing.signal, this.nap.signal]),
        });
      } catch {
        if (this.closed) break;
      }
      wait = Math.min(wait * 2, RECONNECT_MAX_MS);
    }
  }
}
