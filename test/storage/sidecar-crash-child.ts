// The process of the sidecar crash tests in sidecar-crash.test.ts: loads the data dir DIR from its
// log (a checkpoint after every slice of the load: sidecarCheckpointMs 0) with the words index
// subscribed, and kills itself with SIGKILL at the instant POINT names:
//   load             the first checkpoint on disk (renamed, folder synced), at the next read of
//                    memories.jsonl: mid-load
//   mid-write        the second sidecar write: half of its first chunk in the temp file
//   before-rename    the second sidecar write: the temp file written and synced, not renamed
//   before-dir-sync  the second sidecar write: renamed, the folder not yet synced
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { Retriever } from '../../src/search/retriever.js';
import { JsonlStore } from '../../src/storage/jsonl/store.js';

const [dir = '', point = 'none'] = process.argv.slice(2);

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL to oneself lands before the next instruction; never go on in any case.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
};

const isSidecar = (file: fs.PathLike) => path.basename(String(file)) === 'memories.idx';
const isTemp = (file: fs.PathLike) => /^memories\.idx\..*\.tmp$/.test(path.basename(String(file)));

// Which file each descriptor is of.
const names = new Map<number, string>();
const { openSync, readSync, fsyncSync } = fs;
fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
  const fd = (openSync as (...a: unknown[]) => number)(file, ...rest);
  names.set(fd, path.resolve(String(file)));
  return fd;
}) as typeof fs.openSync;

let renames = 0;
/** Set once the first sidecar is renamed and its folder synced. */
let firstOnDisk = false;

fs.readSync = ((fd: number, ...rest: unknown[]) => {
  if (point === 'load' && firstOnDisk && names.get(fd)?.endsWith('memories.jsonl')) die();
  return (readSync as (...a: unknown[]) => number)(fd, ...rest);
}) as typeof fs.readSync;

fs.fsyncSync = ((fd: number) => {
  const syncsDir = names.get(fd) === path.resolve(dir);
  if (syncsDir && renames === 2 && point === 'before-dir-sync') die();
  fsyncSync(fd);
  if (syncsDir && renames === 1) firstOnDisk = true;
}) as typeof fs.fsyncSync;

const promises = fs.promises;
const { rename, open } = promises;
promises.rename = (async (from: fs.PathLike, to: fs.PathLike) => {
  if (isSidecar(to) && renames === 1 && point === 'before-rename') die();
  await rename(from, to);
  if (isSidecar(to)) renames++;
}) as typeof promises.rename;
promises.open = (async (file: fs.PathLike, ...rest: unknown[]) => {
  const handle = await (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(
    file,
    ...rest,
  );
  if (!isTemp(file) || renames !== 1 || point !== 'mid-write') return handle;
  const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<unknown>;
  handle.write = (async (data: Uint8Array, offset = 0, length = data.length) => {
    await write(data, offset, Math.max(1, Math.floor(length / 2)), null);
    await handle.sync();
    return die();
  }) as unknown as typeof handle.write;
  return handle;
}) as typeof promises.open;

const logger = pino({ level: 'info' }, pino.destination(2));
const store = JsonlStore.start({
  dataDir: dir,
  logger,
  clock: () => 1_767_225_600,
  sidecarMinLines: 0,
  sidecarCheckpointMs: 0,
});
store.subscribe(new Retriever({ engine: store, settings: {}, logger }));
await store.sidecarWritten();
await store.close();
// The instant named was never reached: the parent sees a clean exit and fails.
process.exit(0);
