import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { deferred } from '../platform/deferred.js';
import { createServer } from '../server.js';
import { connectStdio, type StdioConnection } from '../transport/stdio.js';
import { type OpenedMemory, openMemory } from './memory.js';

export interface StdioAppDeps {
  logger: Logger;
  clock: () => number;
  /** The protocol's streams: the process's stdin and stdout unless given. */
  stdin?: Readable;
  stdout?: Writable;
}

export interface StdioApp {
  /** Opens the memory and connects the server; resolves at once, the store loads meanwhile. */
  start(): Promise<void>;
  /** Settles when the client closes its end. */
  readonly closed: Promise<void>;
  /** Disconnects, lets a load in progress finish, closes the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** The memory tools served to one client over stdio (`mnemo stdio`, for Claude Desktop). */
export function createStdioApp(config: Config, deps: StdioAppDeps): StdioApp {
  const { logger } = deps;
  let opened: OpenedMemory | undefined;
  let connection: StdioConnection | undefined;
  let clientClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    clientClosed = resolve;
  });
  let stopping: Promise<void> | undefined;

  return {
    closed,
    async start() {
      const started = performance.now();
      // The store loads in the background: the handshake and tools/list are answered at once,
      // and tool calls wait for the load.
      // The model waits for the first answer: the handshake is never held up by its import.
      const answered = deferred();
      const memory = openMemory(config, {
        logger,
        clock: deps.clock,
        watchVault: true,
        namespacesOnDemand: true,
        modelAfter: answered.promise,
      });
      opened = memory;
      // A database that cannot be used stops the start with its one line (the CLI exits 1).
      await memory.connected.catch(async (error: Error) => {
        opened = undefined;
        await memory.close();
        throw error;
      });
      memory.readiness.wait('store', { patient: true }).then(
        () =>
          logger.info(
            {
              dataDir: config.dataDir,
              memories: memory.store.memories.size,
              ms: Math.round(performance.now() - started),
            },
            'memory store loaded',
          ),
        (error: Error) =>
          logger.error(
            { dataDir: config.dataDir, err: error.message },
            'cannot load the memory store',
          ),
      );
      const server = () =>
        createServer({
          memory: memory.memory,
          logger,
          anchorFile: config.anchorFile,
          notifications: true,
        });
      logger.info({ dataDir: config.dataDir, decay: config.decayModel }, 'mnemo stdio ready');
      connection = connectStdio(server, { stdin: deps.stdin, stdout: deps.stdout, logger });
      void connection.closed.then(clientClosed);
      void connection.answered.then(answered.resolve);
    },
    stop() {
      stopping ??= (async () => {
        await connection?.close();
        // Let a load in progress, and the calls waiting on it, finish before the store closes.
        await opened?.readiness.wait('store').catch(() => {});
        await opened?.close();
      })();
      return stopping;
    },
  };
}
