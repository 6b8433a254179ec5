// The writer of the crash tests in durability.test.ts: in the data dir DIR, saves two memories,
// then consolidates them (the merged memory and the archived members in memories.jsonl, the
// consolidated_from relations in relations.jsonl: one transaction over two files) and kills
// itself with SIGKILL at the instant POINT names:
//   journal-torn      half of the transaction's record written
//   memories-torn     half of the memories lines written
//   relations-before  the memories lines synced, the relations not begun
//   relations-torn    half of the relations lines written
//   journal-end       every line synced, the record not yet removed
//   none              no crash
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord, type RelationRecord } from '../../src/storage/records.js';

const [dir = '', point = 'none'] = process.argv.slice(2);
const T0 = 1_767_225_600;

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL to oneself lands before the next instruction; never go on in any case.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
};

// Which file each descriptor is of, to crash at a write to a chosen file.
const names = new Map<number, string>();
const { openSync, writeSync, rmSync } = fs;
fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
  const fd = (openSync as (...a: unknown[]) => number)(file, ...rest);
  names.set(fd, path.basename(String(file)));
  return fd;
}) as typeof fs.openSync;

let armed = false;
fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
  const write = writeSync as (...a: unknown[]) => number;
  const name = names.get(fd);
  const target =
    point === 'journal-torn'
      ? 'transaction.json'
      : point === 'memories-torn'
        ? 'memories.jsonl'
        : point.startsWith('relations')
          ? 'relations.jsonl'
          : undefined;
  if (!armed || name !== target) return write(fd, data, ...rest);
  if (point === 'relations-before') die();
  // (fd, buffer, offset, length): half of it reaches the file, then the process dies.
  const [offset = 0, length = (data as Buffer).length] = rest as number[];
  write(fd, data, offset, Math.max(1, Math.floor(length / 2)));
  return die();
}) as typeof fs.writeSync;
fs.rmSync = ((file: fs.PathLike, options?: fs.RmOptions) => {
  if (armed && point === 'journal-end' && path.basename(String(file)) === 'transaction.json') {
    die();
  }
  rmSync(file, options);
}) as typeof fs.rmSync;

const store = await JsonlStore.open({
  dataDir: dir,
  logger: pino({ level: 'silent' }),
  clock: () => T0,
});
const a = newMemoryRecord('a', 'The staging database listens on port 5433.', T0);
const b = newMemoryRecord('b', 'Staging Postgres runs on port 5433.', T0);
await store.transact(() => ({ result: null, memories: [a, b] }));

armed = true;
const merged = newMemoryRecord('merged', 'Staging Postgres listens on port 5433.', T0, {
  meta: { tags: [], source: null, context: null, extra: { consolidated_from: ['a', 'b'] } },
});
const relations: RelationRecord[] = ['a', 'b'].map((member) => ({
  id: `from-${member}`,
  from_memory_id: 'merged',
  to_memory_id: member,
  relation_type: 'consolidated_from',
  strength: 1,
  created_at: T0,
  metadata: { cluster_id: 'c1' },
}));
await store.transact(() => ({
  result: null,
  memories: [merged, { ...a, status: 'archived' as const }, { ...b, status: 'archived' as const }],
  relations,
}));
store.close();
