// The other process of the sharing test in store.test.ts: opens the data dir DIR and saves one
// memory after another, keeping the lock between them (the default), until its stdin closes;
// says "saving" after the first and, at the end, the ids it saved (one JSON array).
import fs from 'node:fs';
import pino from 'pino';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord } from '../../src/storage/records.js';

const [dir = ''] = process.argv.slice(2);
const T0 = 1_767_225_600;
const store = await JsonlStore.open({
  dataDir: dir,
  logger: pino({ level: 'silent' }),
  clock: () => T0,
  lockWaitMs: 10_000,
});
let open = true;
process.stdin.on('end', () => {
  open = false;
});
process.stdin.resume();
const ids: string[] = [];
while (open) {
  const id = `child-${ids.length}`;
  await store.transact(() => ({
    result: null,
    memories: [newMemoryRecord(id, `saved by the child, number ${ids.length}`, T0)],
  }));
  ids.push(id);
  if (ids.length === 1) fs.writeSync(1, 'saving\n');
  // Its next save comes at once, as an agent's calls in a row do; stdin is read in between.
  await new Promise((resolve) => setImmediate(resolve));
}
await store.close();
fs.writeSync(1, `${JSON.stringify(ids)}\n`);
