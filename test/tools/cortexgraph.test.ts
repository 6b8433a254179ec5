// The tools over a data dir cortexgraph wrote: what they answer keeps its shape, what they write
// keeps cortexgraph's fields and values.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createServer } from '../../src/server.js';
import { openTestMemory, type TestMemory, tempDir } from '../support.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/cortexgraph/', import.meta.url));
const EMBEDDED = '3f9c1a2b-8d7e-4c6f-a5b4-1e2d3c4b5a60';
const WEAK = '7e6d5c4b-3a29-4b18-9c07-f6e5d4c3b2a1';

describe('MCP tools over a cortexgraph data dir', () => {
  let t: TestMemory;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    return result;
  };
  const lastLineOf = (id: string) =>
    fs
      .readFileSync(path.join(t.dir, 'memories.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .findLast((l) => l.id === id);

  before(async () => {
    const dir = tempDir();
    for (const name of fs.readdirSync(FIXTURES)) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
    }
    t = await openTestMemory({}, dir);
    await t.opened.readiness.wait('store');
    const server = createServer({ memory: t.memory, logger: t.logger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'mnemo-test', version: '0.0.0' });
    await client.connect(clientSide);
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('open_memories answers the fields of its schema, without their embed vectors', async () => {
    const result = await call('open_memories', { memory_ids: [EMBEDDED, WEAK] });
    const wire = JSON.stringify(result);
    assert.equal(wire.includes('embed'), false, wire);
    assert.equal(wire.includes('0.2245'), false);
    const memories = (result.structuredContent as { memories: Record<string, unknown>[] }).memories;
    assert.deepEqual(
      memories.map((m) => [m.id, m.strength]),
      [
        [EMBEDDED, 1.2],
        [WEAK, 0.8],
      ],
    );
  });

  it('touch_memory keeps a strength of 0.8 and their vector; a boost adds 0.1 to it', async () => {
    const touched = await call('touch_memory', { memory_id: WEAK });
    assert.equal((touched.structuredContent as { strength: number }).strength, 0.8);
    assert.equal(lastLineOf(WEAK)?.strength, 0.8);
    assert.deepEqual(lastLineOf(WEAK)?.embed, [0.101, 0, -0.05, 0.3]);
    const boosted = await call('touch_memory', { memory_id: WEAK, boost_strength: true });
    assert.equal((boosted.structuredContent as { strength: number }).strength, 0.9);
    assert.equal(lastLineOf(WEAK)?.strength, 0.9);
  });

  it('delete_memory and restore_memory bring the record back with its vector', async () => {
    await call('delete_memory', { memory_id: EMBEDDED });
    await call('restore_memory', { memory_id: EMBEDDED });
    const line = lastLineOf(EMBEDDED);
    assert.equal(line?.status, 'active');
    assert.deepEqual(line?.embed, [0.0132, -0.0871, 0.2245, 0.0419]);
  });
});
