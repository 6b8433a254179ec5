import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export interface StdioConnection {
  /** Settles when the client closes its end (stdin ends, or the transport closes). */
  closed: Promise<void>;
  /** Disconnects the server: stdin is no longer read. */
  close(): Promise<void>;
}

/** Connects `server` to stdin/stdout (or the given streams) and resolves once it listens. */
export async function connectStdio(
  server: McpServer,
  io: { stdin?: Readable; stdout?: Writable } = {},
): Promise<StdioConnection> {
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    (io.stdin ?? process.stdin).once('end', () => resolve());
  });
  await server.connect(transport);
  return { closed, close: () => server.close() };
}
