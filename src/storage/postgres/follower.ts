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

export interface FollowerOptions {
  url: string;
  logger: Logger;
  /** First wait before the listener connects again (doubles up to 5 s). */
  reconnectMs?: number | undefined;
  /** Reads and applies the changes after the last one applied. */
  catchUp(): Promise<void>;
  /** The change sequence number of the last change applied. */
  applied(): number;
}

export class Follower {
  /** The highest change sequence number a notification named. */
  private heard = 0;
  /** Reads waiting for the changes heard of before they began. */
  private waiters: { target: number; resolve: () => void }[] = [];
  /** A catch-up asked for by a notification and not yet done. */
  private pending: Promise<void> | undefined;
  /** A notification came while that catch-up ran: another one follows it. */
  private again = false;
  private listener: pg.Client | undefined;
  private closed = false;
  private readonly closing = new AbortController();

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

  /**
   * Resolves once the changes heard of before this call are applied, at once when they are. Only
   * those: under a steady stream of writes, waiting for the catch-ups to end would wait for a
   * lull. Never longer than a moment: a read may be a little stale, it must not hang.
   */
  caughtUp(): Promise<void> {
    const target = this.heard;
    if (this.options.applied() >= target) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ target, resolve });
      setTimeout(resolve, READ_WAIT_MS).unref();
    });
  }

  /** More changes were applied: the reads waiting for them go on. */
  advanced(): void {
    if (this.waiters.length === 0) return;
    const applied = this.options.applied();
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.target <= applied) w.resolve();
      else this.waiters.push(w);
    }
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
   * database may NOTIFY mnemo's channel, and a sequence number no change reaches held every read
   * of every namespace READ_WAIT_MS, for good.
   */
  private believeApplied(): void {
    const applied = this.options.applied();
    if (this.heard <= applied) return;
    this.heard = applied;
    this.release();
  }

  /** The reads waiting go on with what is applied (a catch-up failed, or it closed). */
  private release(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.resolve();
  }

  /** Asks for a catch-up, once at a time; the next one after it when asked again meanwhile. */
  private schedule(): void {
    if (this.closed) return;
    if (this.pending) {
      this.again = true;
      return;
    }
    const run = async () => {
      try {
        await this.options.catchUp();
        if (!this.again) this.believeApplied();
      } catch (error) {
        // Reads go on with what is applied rather than wait for the database to be back.
        this.release();
        if (!this.closed) {
          this.options.logger.warn(
            { err: (error as Error).message },
            'cannot read the other replicas’ changes: tried again at the next one',
          );
        }
      }
      if (this.again) {
        this.again = false;
        await run();
      }
    };
    this.pending = run().finally(() => {
      this.pending = undefined;
    });
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
          const seq = noticeOf(message.payload ?? '', schema);
          if (seq === undefined) return;
          if (seq > this.heard) this.heard = seq;
          if (seq > this.options.applied()) this.schedule();
        });
        await client.query(`LISTEN ${CHANNEL}`);
        this.listener = client;
        if (this.closed) break;
        first = false;
        listening();
        wait = this.options.reconnectMs ?? 250;
        // What was written while no one listened.
        this.schedule();
        const error = await lost;
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
      try {
        await sleep(wait, undefined, { signal: this.closing.signal });
      } catch {
        break;
      }
      wait = Math.min(wait * 2, 5000);
    }
  }
}
