import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** Serves `server` over stdin/stdout; resolves when the client closes the stream. */
export async function serveStdio(
  server: McpServer,
  io: { stdin?: Readable; stdout?: Writable } = {},
): Promise<void> {
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    (io.stdin ?? process.stdin).once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
