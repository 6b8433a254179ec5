import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { READS, type ToolContract } from '../../src/contract/shared.js';
import { MemoryError } from '../../src/memory/errors.js';
import { registerContract } from '../../src/tools/register.js';
import { capturingLogger, errorText } from '../support.js';

const echo = {
  name: 'echo',
  title: 'Echo',
  description: 'Says the word back.',
  input: z.object({ word: z.string() }),
  output: z.object({ said: z.string() }),
  annotations: READS,
} satisfies ToolContract;

async function linked(run: (word: string) => Promise<{ said: string }>) {
  const { logger, lines } = capturingLogger();
  const server = new McpServer({ name: 'test', version: '0' });
  registerContract(server, logger, echo, {
    run: ({ word }) => run(word),
    text: ({ said }, { word }) => `${word} -> ${said}`,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(clientSide);
  const call = async (word: string) =>
    (await client.callTool({ name: 'echo', arguments: { word } })) as CallToolResult;
  return { call, lines, close: () => client.close() };
}

describe('registerContract: a tool from its contract', () => {
  it('lists the contract and answers structuredContent with its text', async () => {
    const t = await linked(async (word) => ({ said: word.toUpperCase() }));
    try {
      const result = await t.call('hi');
      assert.deepEqual(result.structuredContent, { said: 'HI' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hi -> HI' }]);
      assert.equal(result.isError, undefined);
    } finally {
      await t.close();
    }
  });

  it('answers a UserError with its message, and logs nothing', async () => {
    const t = await linked(async () => {
      throw new MemoryError('word is not one to say: pass another', 'word');
    });
    try {
      const result = await t.call('secret');
      assert.equal(result.isError, true);
      assert.equal(errorText(result), 'word is not one to say: pass another');
      assert.deepEqual(t.lines, []);
    } finally {
      await t.close();
    }
  });

  it('answers any other error without its internals, and logs it without the arguments', async () => {
    const t = await linked(async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'x') at /srv/mnemo/x.js");
    });
    try {
      const result = await t.call('private-argument');
      assert.equal(result.isError, true);
      const text = errorText(result);
      assert.match(text, /^echo failed inside mnemo/);
      assert.ok(!text.includes('Cannot read') && !text.includes('/srv'), text);
      assert.equal(t.lines.length, 1);
      const [line] = t.lines;
      assert.equal(line?.tool, 'echo');
      assert.match(JSON.stringify(line?.err), /Cannot read properties/);
      assert.ok(!JSON.stringify(t.lines).includes('private-argument'), 'no arguments in the log');
    } finally {
      await t.close();
    }
  });
});
