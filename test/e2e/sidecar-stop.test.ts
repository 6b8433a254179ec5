// The sidecar a first start builds reaches the disk without waiting for a clean exit, atomically:
// a `mnemo stdio` killed with SIGKILL while it writes leaves no sidecar (or the one before) and a
// temp file the next start removes; a client that leaves right after its first answer (stdin
// closed, as the MCP SDK's does) finds it written. A real store, big enough that the write takes
// a while: 40,000 memories (the kill lands while the temp file is written, its rename not yet
// made, in every run tried; 100,000 took twice the CPU for the same).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { JsonlFile } from '../../src/storage/jsonl/jsonl-file.js';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { SIDECAR_FILE } from '../../src/storage/sidecar.js';
import { recordingLogger } from '../support.js';
import { type CliClient, makeTempDir, removeDir, startClient } from './helpers.js';

const COUNT = 40_000;
const NOW = 1_700_000_000;
const WORDS = ['kitten', 'billing', 'coffee', 'gateway', 'basil', 'tuesday', 'station', 'rug'];
const TEMP = /^memories\.idx\.\d+\.[0-9a-f]{16}\.tmp$/;

const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** A data dir of COUNT memories, written straight to its log (no sidecar). */
function filledDir(): string {
  const dir = makeTempDir();
  const log = new JsonlFile(path.join(dir, 'memories.jsonl'));
  try {
    log.rewrite(
      (function* () {
        for (let i = 0; i < COUNT; i++) {
          const words = `${WORDS[i % 8]} ${WORDS[(i >> 3) % 8]} ${WORDS[(i >> 6) % 8]}`;
          yield newMemoryRecord(idOf(i), `note ${i}: ${words} uniqueword${i}`, NOW - i);
        }
      })(),
    );
  } finally {
    log.close();
  }
  return dir;
}

/**
 * What a next start finds: a `mnemo stdio` start's log lines (it answers a search of the last
 * memory), then every memory's id as a store opened here reads them.
 */
async function nextStart(dir: string, clients: CliClient[]) {
  const client = await startClient(dir, { env: { MNEMO_LOG_LEVEL: 'info' } });
  clients.push(client);
  const found = await client.ok<{ total: number }>('search_memory', {
    query: `uniqueword${COUNT - 1}`,
  });
  assert.equal(found.total, 1);
  await client.close();
  await client.exited;
  const msgs = client
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      const entry = JSON.parse(line) as { level: number; msg: string };
      return `${entry.level} ${entry.msg}`;
    });
  const store = await JsonlStore.open({
    dataDir: dir,
    logger: recordingLogger().logger,
    clock: () => NOW,
  });
  const ids = new Set(store.memories.keys());
  await store.close();
  return { ids, msgs };
}

const temps = (dir: string) => fs.readdirSync(dir).filter((name) => TEMP.test(name));

describe('the sidecar written by a first start', () => {
  const dir = filledDir();
  const clients: CliClient[] = [];
  after(async () => {
    await Promise.all(clients.map((c) => c.kill()));
    removeDir(dir);
  });

  it('killed with SIGKILL while it is written: the next start reads the log, nothing lost', async (t) => {
    // The instant chosen: the temp file of the write has just been made. On a busy machine the
    // watcher's event can come after the rename (the write done): then the sidecar is removed
    // and the start made again, up to three times; a kill that never lands mid-write fails.
    let killedMidWrite = false;
    for (let attempt = 1; attempt <= 3 && !killedMidWrite; attempt++) {
      fs.rmSync(path.join(dir, SIDECAR_FILE), { force: true });
      let client: CliClient | undefined;
      const watcher = fs.watch(dir, (_event, name) => {
        if (client && !killedMidWrite && name && TEMP.test(name)) {
          killedMidWrite = fs.existsSync(path.join(dir, name));
          process.kill(client.pid, 'SIGKILL');
        }
      });
      try {
        client = await startClient(dir);
        clients.push(client);
        const found = await client.ok<{ total: number }>('search_memory', {
          query: 'uniqueword7',
        });
        assert.equal(found.total, 1);
        await client.exited;
      } finally {
        watcher.close();
      }
      t.diagnostic(`attempt ${attempt}: killed mid-write: ${killedMidWrite}`);
    }
    const left = temps(dir);
    t.diagnostic(`left: ${left.join(', ') || 'nothing'}`);
    assert.ok(killedMidWrite, 'the kill came while the temp file was there');
    const { ids, msgs } = await nextStart(dir, clients);
    assert.equal(ids.size, COUNT, 'no memory lost');
    for (const i of [0, COUNT >> 1, COUNT - 1]) assert.ok(ids.has(idOf(i)));
    // Either the write was cut short (no sidecar: the log is read whole) or its rename came just
    // before the kill (the sidecar is whole and used): never one that is refused as torn.
    assert.ok(
      msgs.some((m) => /no memories\.idx|started from memories\.idx/.test(m)),
      msgs.join('\n'),
    );
    assert.ok(!msgs.some((m) => /is not used|could not be used/.test(m)), msgs.join('\n'));
    assert.deepEqual(temps(dir), [], 'the temp file of the killed process is removed');
  });

  it('a client leaving right after its first answer finds it written', async () => {
    fs.rmSync(path.join(dir, SIDECAR_FILE), { force: true });
    const client = await startClient(dir);
    clients.push(client);
    const found = await client.ok<{ total: number }>('search_memory', { query: 'uniqueword9' });
    assert.equal(found.total, 1);
    // stdin closed, then SIGTERM 2 s and SIGKILL 4 s later if it lingers: the SDK's close.
    await client.close();
    await client.exited;
    assert.ok(fs.existsSync(path.join(dir, SIDECAR_FILE)), client.stderr());
    const { ids, msgs } = await nextStart(dir, clients);
    assert.ok(
      msgs.some((m) => /started from memories\.idx/.test(m)),
      msgs.join('\n'),
    );
    assert.equal(ids.size, COUNT);
  });
});
