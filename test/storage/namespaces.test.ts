import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { StoreListener } from '../../src/storage/engine.js';
import { StoreError } from '../../src/storage/errors.js';
import { FILES, JsonlStore } from '../../src/storage/jsonl/store.js';
import { type MemoryRecord, newMemoryRecord, OTHER_FIELDS } from '../../src/storage/records.js';

const T0 = 1_767_225_600;
const FIXTURES = fileURLToPath(new URL('../fixtures/cortexgraph/', import.meta.url));

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-ns-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function openStore(t: TestContext, dir: string, compactMinLines?: number) {
  const store = await JsonlStore.open({
    dataDir: dir,
    logger: pino({ level: 'silent' }),
    clock: () => T0,
    ...(compactMinLines !== undefined ? { compactMinLines } : {}),
  });
  t.after(() => store.close());
  return store;
}

const lines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const save = (id: string, content: string) => () => ({
  result: id,
  memories: [newMemoryRecord(id, content, T0)],
});

describe('JsonlStore: namespaces', () => {
  it('the default namespace writes no field, another writes "namespace" in every log', async (t) => {
    const dir = tempDir(t);
    const store = await openStore(t, dir);
    const work = store.namespace('work');
    await store.transact(save('d1', 'plain'));
    await work.transact(save('w1', 'work one'));
    await work.transact(save('w2', 'work two'));
    await work.transact(() => ({
      result: null,
      relations: [
        {
          id: 'r1',
          from_memory_id: 'w1',
          to_memory_id: 'w2',
          relation_type: 'related',
          strength: 1,
          created_at: T0,
          metadata: {},
        },
      ],
    }));
    const w2 = work.memories.get('w2') as MemoryRecord;
    await work.transact(() => ({ result: null, forgotten: [w2], deletes: ['w2'] }));

    const memories = lines(path.join(dir, FILES.memories));
    assert.equal('namespace' in (memories[0] as object), false);
    assert.deepEqual(
      memories.slice(1).map((l) => l.namespace),
      ['work', 'work', undefined],
    );
    assert.deepEqual(memories[3], { id: 'w2', _deleted: true });
    assert.equal(lines(path.join(dir, FILES.relations))[0]?.namespace, 'work');
    assert.equal(lines(path.join(dir, FILES.forgotten))[0]?.namespace, 'work');

    assert.deepEqual([...store.memories.keys()], ['d1']);
    assert.deepEqual([...work.memories.keys()], ['w1']);
    assert.equal(store.relations.size, 0);
    assert.equal(work.relationsOf('w1').length, 1);
    assert.equal(store.relationsOf('w1').length, 0);
    // The record itself carries no namespace: tool answers keep their shape.
    assert.equal('namespace' in (work.memories.get('w1') as object), false);
    assert.equal((await work.findForgotten('w2'))?.content, 'work two');
    assert.equal(await store.findForgotten('w2'), undefined);
    assert.equal(await store.namespace('other').findForgotten('w2'), undefined);
  });

  it('a write of one namespace never deletes or takes over a record of another', async (t) => {
    const store = await openStore(t, tempDir(t));
    const a = store.namespace('a');
    const b = store.namespace('b');
    await a.transact(save('x', 'of a'));
    await b.transact(() => ({ result: null, deletes: ['x'] }));
    assert.equal(a.memories.get('x')?.content, 'of a');
    await assert.rejects(b.transact(save('x', 'taken over')), StoreError);
    assert.equal(a.memories.get('x')?.content, 'of a');
    assert.equal(b.memories.size, 0);
  });

  it('listeners hear of their namespace only; another process and a compaction keep it', async (t) => {
    const dir = tempDir(t);
    const store = await openStore(t, dir, 4);
    const heard: Record<string, string[]> = { default: [], a: [] };
    const listener = (name: string): StoreListener => ({
      upsert: (r) => heard[name]?.push(r.id),
      remove: (r) => heard[name]?.push(`-${r.id}`),
      reset: () => heard[name]?.push('reset'),
    });
    store.subscribe(listener('default'));
    store.namespace('a').subscribe(listener('a'));
    for (let i = 0; i < 12; i++) {
      await store.namespace('a').transact(save('a1', `version ${i}`));
    }
    await store.transact(save('d1', 'plain'));
    assert.equal(store.compactNow(), true);
    assert.deepEqual(heard.default, ['d1']);
    assert.equal(heard.a?.length, 12);

    const other = await openStore(t, dir);
    assert.equal(other.namespace('a').memories.get('a1')?.content, 'version 11');
    assert.deepEqual([...other.memories.keys()], ['d1']);
    assert.deepEqual(
      lines(path.join(dir, FILES.memories)).map((l) => l.namespace),
      [undefined, 'a'],
    );
  });

  it('a cortexgraph data dir opens as the default namespace, and its lines stay as they were', async (t) => {
    const dir = tempDir(t);
    for (const name of fs.readdirSync(FIXTURES)) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
    }
    const before = fs.readFileSync(path.join(dir, FILES.memories), 'utf8');
    const store = await openStore(t, dir);
    assert.ok(store.memories.size > 0);
    assert.equal(store.namespace('a').memories.size, 0);
    await store.namespace('a').transact(save('n1', 'new in a'));
    const after = fs.readFileSync(path.join(dir, FILES.memories), 'utf8');
    assert.equal(after.slice(0, before.length), before);
  });

  it('unknown fields are kept beside the namespace, which is neither among them nor written twice', async (t) => {
    const dir = tempDir(t);
    const line = { ...newMemoryRecord('k', 'kept', T0), embed: [0.5, 0.25], namespace: 'a' };
    fs.writeFileSync(path.join(dir, FILES.memories), `${JSON.stringify(line)}\n`);
    const store = await openStore(t, dir);
    const a = store.namespace('a');
    const record = a.memories.get('k') as MemoryRecord;
    assert.deepEqual(record[OTHER_FIELDS], { embed: [0.5, 0.25] });
    await a.transact(() => ({ result: null, memories: [{ ...record, use_count: 1 }] }));
    assert.equal(store.compactNow(), true);
    const text = fs.readFileSync(path.join(dir, FILES.memories), 'utf8');
    assert.equal(text.match(/"namespace"/g)?.length, 1);
    assert.deepEqual(JSON.parse(text), { ...line, use_count: 1 });
  });

  it('a line with a namespace that is not a name is quarantined; a bad name is refused', async (t) => {
    const dir = tempDir(t);
    fs.writeFileSync(
      path.join(dir, FILES.memories),
      `${JSON.stringify({ ...newMemoryRecord('ok', 'fine', T0), namespace: 'a' })}\n${JSON.stringify(
        { ...newMemoryRecord('bad', 'bad', T0), namespace: 'Not A Name' },
      )}\n`,
    );
    const store = await openStore(t, dir);
    assert.deepEqual([...store.namespace('a').memories.keys()], ['ok']);
    assert.equal(store.memories.size, 0);
    const kept = lines(path.join(dir, FILES.quarantine));
    assert.equal(kept.length, 1);
    assert.match(String(kept[0]?.reason), /namespace/);
    assert.throws(() => store.namespace('../etc'), /not a namespace name/);
    assert.throws(() => store.namespace('x'.repeat(65)), StoreError);
  });
});
