// A fixture for the floor (bench/lib/floor.ts): an MCP server over stdio whose tools do (almost)
// nothing, so the round trip of a call to it is what the SDK's client, the pipes and a server's
// protocol handling cost, and nothing of a store. `noop` answers at once; `append` (when
// MNEMO_BENCH_FLOOR_FILE names a file) appends its line there and fdatasyncs it before the
// answer, as the least any durable save does. Run as a child process, never imported.
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-noop', version: '0.0.0' });
server.registerTool('noop', { description: 'Does nothing and answers at once.' }, async () => ({
  content: [],
}));
const file = process.env.MNEMO_BENCH_FLOOR_FILE;
if (file) {
  const fd = fs.openSync(file, 'wx');
  server.registerTool(
    'append',
    {
      description: 'Appends the line to the floor file and fdatasyncs it, then answers.',
      inputSchema: z.object({ line: z.string() }),
    },
    async ({ line }) => {
      fs.writeSync(fd, line);
      fs.fdatasyncSync(fd);
      return { content: [] };
    },
  );
}
await server.connect(new StdioServerTransport());
