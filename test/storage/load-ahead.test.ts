// A long load on two threads (a worker tokenizes the log ahead, src/search/load-words.ts) gives
// the same records and the same words index as the load on one, whatever the log holds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { seededRandom } from '../../bench/lib/content.js';
import { locomoTexts } from '../../bench/lib/locomo-text.js';
import { RANK_FACTS_AT } from '../../src/search/lexical-index.js';
import { LoadWords, type LoadWordsOptions } from '../../src/search/load-words.js';
import { RANK_FACTS } from '../../src/search/rank-facts.js';
import { Retriever } from '../../src/search/retriever.js';
import { Tokenizer } from '../../src/search/tokenizer.js';
import type { LogSpan, StorageEngine } from '../../src/storage/engine.js';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { T0, testDir } from '../support.js';

const logger = pino({ level: 'silent' });

/**
 * A log of `count` memories of real text, with what a log of years holds: updates of the words
 * and of the numbers only, deletions, other namespaces (one memory moved out of one), capitals
 * and text outside ASCII, tags and entities, unparsable lines, invalid records, blank lines, and
 * a torn last line.
 */
function writeLog(file: string, count: number, seed: number): void {
  const random = seededRandom(seed);
  const texts = locomoTexts(count, seed);
  const lines: string[] = [];
  const ids: string[] = [];
  const put = (fields: Record<string, unknown>) => lines.push(JSON.stringify(fields));
  for (let i = 0; i < count; i++) {
    const id = `m-${seed}-${i}`;
    ids.push(id);
    let content = texts[i] as string;
    if (i % 17 === 0) content = `${content.toUpperCase()} Zürich café ÉTÉ`;
    if (i % 23 === 0) content = `  ${content}\t\n  spaced   out  `;
    const record = newMemoryRecord(id, content, T0 - i, {
      use_count: i % 5,
      entities: i % 7 === 0 ? ['Caroline', 'LGBTQ'] : [],
      meta: { tags: i % 3 === 0 ? ['Work', 'dance'] : [], source: null, context: null, extra: {} },
    });
    put(i % 11 === 0 ? { ...record, namespace: 'other' } : { ...record });
    const r = random();
    const earlier = ids[Math.floor(random() * ids.length)] as string;
    if (r < 0.08) {
      // New words for an earlier memory (default namespace, or moved from another).
      put({ ...newMemoryRecord(earlier, `${texts[(i * 7) % count]} revised`, T0 + i) });
    } else if (r < 0.16) {
      put({
        ...newMemoryRecord(earlier, texts[ids.indexOf(earlier)] as string, T0 + i),
        use_count: 9,
      });
    } else if (r < 0.2) {
      put({ id: earlier, _deleted: true });
    } else if (r < 0.21) {
      lines.push('{"id": "broken", "content": ');
    } else if (r < 0.22) {
      put({ id: `bad-${i}`, content: 42 });
    } else if (r < 0.23) {
      lines.push('');
    } else if (r < 0.235) {
      put({ ...newMemoryRecord(`ns-${i}`, 'a bad namespace', T0), namespace: 'Not A Namespace' });
    }
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n{"id":"torn","content":"cut sho`);
}

interface Loaded {
  store: JsonlStore;
  retriever: Retriever;
  spans: LogSpan[];
}

async function load(
  dir: string,
  readAhead: boolean,
  sidecarMinLines = 1e9,
  fillIdleMs?: number,
  factsInLoadBytes?: number,
): Promise<Loaded> {
  const holder: { store?: JsonlStore } = {};
  const engine = {
    get memories() {
      return (holder.store as JsonlStore).memories;
    },
  } as Pick<StorageEngine, 'memories'>;
  const retriever = new Retriever({
    engine,
    settings: { readAhead, fillIdleMs, factsInLoadBytes },
    logger,
  });
  const spans: LogSpan[] = [];
  const readAheadOf = retriever.readAhead.bind(retriever);
  retriever.readAhead = (span) => {
    spans.push(span);
    return readAheadOf(span);
  };
  holder.store = await JsonlStore.open(
    { dataDir: dir, logger, clock: () => T0, readAheadMinBytes: 0, sidecarMinLines },
    [retriever],
  );
  return { store: holder.store, retriever, spans };
}

/** Everything a load builds, as plain values: the records of each namespace and the index. */
function built({ store, retriever }: Loaded) {
  const ids = [...store.memories.keys()].sort();
  const keys = new Map(ids.map((id, i) => [id, i]));
  // Taken in steps (as a sidecar is): run to its end here, with nothing changing meanwhile.
  const steps = retriever.persistence.save((id) => keys.get(id) ?? -1);
  let step = steps.next();
  while (!step.done) step = steps.next();
  const index = step.value;
  return {
    memories: [...store.memories.entries()],
    other: [...store.namespace('other').memories.entries()],
    index,
  };
}

/**
 * The same build, but for the rank facts: a long log's load workers leave them unknown (NaN) for
 * the first search to read (`valuesOf`), the load on one thread reads them (`unknownFacts` says
 * so of its live memories: a memory removed before its facts were read keeps them unknown);
 * where both know them, they agree.
 */
function assertSameBuild(ahead: ReturnType<typeof built>, plain: ReturnType<typeof built>): void {
  const facts = (b: ReturnType<typeof built>) => {
    assert.ok(b.index);
    const columns = b.index.columns as Record<string, Float64Array>;
    const out = Array.from({ length: RANK_FACTS }, (_, c) => columns[`value${RANK_FACTS_AT + c}`]);
    const rest = { ...b, index: { ...b.index, columns: { ...columns } } };
    for (let c = 0; c < RANK_FACTS; c++) delete rest.index.columns[`value${RANK_FACTS_AT + c}`];
    return { out, rest };
  };
  const a = facts(ahead);
  const p = facts(plain);
  assert.deepEqual(a.rest, p.rest);
  a.out.forEach((column, c) => {
    assert.ok(column, `value${RANK_FACTS_AT + c}`);
    column.forEach((value, row) => {
      const other = p.out[c]?.[row] as number;
      if (!Number.isNaN(value) && !Number.isNaN(other)) assert.equal(value, other);
    });
  });
}

/** The live memories of the index whose rank facts are unknown (a removed one's do not count). */
function unknownFacts({ retriever }: Loaded): number {
  const index = retriever.lexical;
  let unknown = 0;
  index.eachOrdinal((ordinal) => {
    if (Number.isNaN(index.valueAt(ordinal, RANK_FACTS_AT))) unknown++;
  });
  return unknown;
}

function copyDir(from: string, to: string): void {
  for (const name of fs.readdirSync(from)) {
    fs.copyFileSync(path.join(from, name), path.join(to, name));
  }
}

describe('a load with a worker reading ahead', () => {
  it('builds the records and the words index the load on one thread builds', async (t) => {
    const one = testDir(t);
    const two = testDir(t);
    writeLog(path.join(one, 'memories.jsonl'), 3000, 5);
    copyDir(one, two);
    const plain = await load(one, false);
    // Counts the lines the worker's words were taken for: most, not none.
    let served = 0;
    const take = LoadWords.prototype.take;
    LoadWords.prototype.take = function (this: LoadWords, offset: number, length: number) {
      const prepared = take.call(this, offset, length);
      if (prepared) served++;
      return prepared;
    };
    // And the lines the store did not parse at all (new memories of the default namespace).
    let unparsed = 0;
    const upsertPrepared = Retriever.prototype.upsertPrepared;
    Retriever.prototype.upsertPrepared = function (this: Retriever, record, line) {
      unparsed++;
      upsertPrepared.call(this, record, line);
    };
    let ahead: Loaded;
    try {
      ahead = await load(two, true);
    } finally {
      LoadWords.prototype.take = take;
      Retriever.prototype.upsertPrepared = upsertPrepared;
    }
    try {
      assert.ok(served > 2500, `the worker's words were taken for ${served} lines`);
      assert.ok(unparsed > 2000 && unparsed < served, `${unparsed} lines were not parsed`);
      assert.equal(plain.spans.length, 1);
      assert.equal(ahead.spans.length, 1);
      assert.ok(plain.store.memories.size > 2000);
      assertSameBuild(built(ahead), built(plain));
      assert.equal(unknownFacts(plain), 0);
      // A short log: the workers read the facts too, so none is left for the first searches.
      assert.equal(unknownFacts(ahead), 0);
      const quarantined = (dir: string) =>
        fs.readFileSync(path.join(dir, 'quarantine.jsonl'), 'utf8');
      assert.equal(quarantined(two), quarantined(one));
    } finally {
      await plain.store.close();
      await ahead.store.close();
    }
  });

  it("reads little of the log's bytes itself: the lines the worker read are passed over by their lengths", async (t) => {
    const one = testDir(t);
    const two = testDir(t);
    // Memories alone (no bad line to quarantine, whose rewrite reads the log again).
    const texts = locomoTexts(3000, 7);
    const lines = texts.map((text, i) => JSON.stringify(newMemoryRecord(`m-${i}`, text, T0 - i)));
    fs.writeFileSync(path.join(one, 'memories.jsonl'), `${lines.join('\n')}\n`);
    copyDir(one, two);
    const size = fs.statSync(path.join(one, 'memories.jsonl')).size;
    // The bytes this thread reads in a load (a worker's are its own thread's, not counted here).
    const bytesRead = async (dir: string, ahead: boolean) => {
      let bytes = 0;
      const readSync = fs.readSync;
      fs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
        const n = (readSync as (...a: unknown[]) => number)(...args);
        bytes += n;
        return n;
      }) as typeof fs.readSync;
      let loaded: Loaded | undefined;
      try {
        loaded = await load(dir, ahead);
      } finally {
        fs.readSync = readSync;
        await loaded?.store.close();
      }
      return bytes;
    };
    const plain = await bytesRead(one, false);
    const ahead = await bytesRead(two, true);
    assert.ok(plain >= size, `the load on one thread read ${plain} of ${size} bytes`);
    assert.ok(ahead < size / 4, `with the worker this thread read ${ahead} of ${size} bytes`);
  });

  it('never waits on a worker whose window the main thread does not take (other namespaces, a long line)', {
    timeout: 60_000,
  }, async (t) => {
    // The main thread takes the worker's chunks only by asking for lines past them: 20 MB of
    // another namespace's memories (the default index never asks) filled the worker's window
    // while the load waited for it to move on, and a start hung for good.
    const one = testDir(t);
    const two = testDir(t);
    const log = path.join(one, 'memories.jsonl');
    const filler = 'x'.repeat(900);
    const lines: string[] = [];
    for (let i = 0; i < 22_000; i++) {
      lines.push(
        JSON.stringify({ ...newMemoryRecord(`o-${i}`, `${filler} ${i}`, T0), namespace: 'other' }),
      );
    }
    lines.push(`{"x":"${'a'.repeat(20 << 20)}"}`);
    lines.push(JSON.stringify(newMemoryRecord('mine', 'kettle boils water', T0)));
    fs.writeFileSync(log, `${lines.join('\n')}\n`);
    copyDir(one, two);
    const plain = await load(one, false);
    const ahead = await load(two, true);
    try {
      assert.equal(ahead.spans.length, 1, 'the worker was started');
      assert.ok(ahead.store.memories.has('mine'));
      assertSameBuild(built(ahead), built(plain));
    } finally {
      await plain.store.close();
      await ahead.store.close();
    }
  });

  it('reads ahead only what the sidecar does not cover, and builds the same', async (t) => {
    const one = testDir(t);
    const two = testDir(t);
    const log = path.join(one, 'memories.jsonl');
    writeLog(log, 1500, 8);
    const first = await load(one, false, 0);
    await first.store.close();
    const covered = fs.statSync(log).size;
    const more = path.join(testDir(t), 'more.jsonl');
    writeLog(more, 1500, 9);
    fs.appendFileSync(log, fs.readFileSync(more));
    copyDir(one, two);
    const plain = await load(one, false);
    const ahead = await load(two, true);
    try {
      assert.equal(ahead.spans[0]?.from, covered);
      assertSameBuild(built(ahead), built(plain));
    } finally {
      await plain.store.close();
      await ahead.store.close();
    }
  });
});

describe('the rank facts a load left unknown', () => {
  it('are filled in once the index rests, and the sidecar written then holds them', async (t) => {
    const one = testDir(t);
    const two = testDir(t);
    writeLog(path.join(one, 'memories.jsonl'), 3000, 12);
    copyDir(one, two);
    const plain = await load(one, false);
    // The fill's end, when it asks the store to write the sidecar again.
    let filled: () => void = () => {};
    const asked = new Promise<void>((resolve) => (filled = resolve));
    const loaded = Retriever.prototype.loaded;
    Retriever.prototype.loaded = function (this: Retriever, span, saveLearnt) {
      return loaded.call(this, span, () => {
        saveLearnt();
        filled();
      });
    };
    // The fill never keeps a process alive (its timer and worker are unref'd): this test does.
    const alive = setInterval(() => {}, 60_000);
    // Workers that read no facts, as for a log longer than FACTS_IN_LOAD_BYTES (a fill begins only
    // where some are unknown).
    const ahead = await load(two, true, 100, 0, 0);
    try {
      await asked;
      clearInterval(alive);
      Retriever.prototype.loaded = loaded;
      await ahead.store.sidecarWritten();
      // Every fact known now, and each the one the load on one thread worked out.
      assert.equal(unknownFacts(ahead), 0);
      assertSameBuild(built(ahead), built(plain));
      await ahead.store.close();
      const again = await load(two, true);
      try {
        // From the sidecar: at most the torn last line is past it.
        assert.ok(again.spans.every((span) => span.from > 0));
        assert.equal(unknownFacts(again), 0);
        assertSameBuild(built(again), built(plain));
      } finally {
        await again.store.close();
      }
    } finally {
      clearInterval(alive);
      Retriever.prototype.loaded = loaded;
      await plain.store.close();
      await ahead.store.close();
    }
  });
});

describe('LoadWords', () => {
  // One worker over the whole log, as a short load has, and several over stripes so small that
  // their ends fall everywhere: inside lines, on a line's first byte, on its newline.
  const readers: [string, LoadWordsOptions, boolean, number?][] = [
    ['one worker', {}, false],
    // More lines and words in one chunk than it first has room for: its columns grow.
    [
      'one worker, one stripe of 12,000 memory lines',
      { workers: 1, stripeBytes: 1 << 26 },
      false,
      12_000,
    ],
    ['two workers, stripes of 1,000 bytes', { workers: 2, stripeBytes: 1000 }, false],
    [
      'three workers, stripes of 4,099 bytes, from a line inside',
      { workers: 3, stripeBytes: 4099 },
      true,
    ],
    ['two workers, stripes of 257 bytes', { workers: 2, stripeBytes: 257 }, false],
  ];
  for (const [name, options, fromInside, count = 800] of readers) {
    it(`sends the words of every memory line, none of any other line (${name})`, async (t) => {
      const dir = testDir(t);
      const file = path.join(dir, 'memories.jsonl');
      writeLog(file, count, 3);
      const text = fs.readFileSync(file);
      // A span may begin where a sidecar ends: at a line's start.
      const from = fromInside ? text.indexOf(10, text.length >> 1) + 1 : 0;
      const tokenizer = new Tokenizer();
      const plain = new Tokenizer();
      const words = new LoadWords(
        { path: file, ino: fs.statSync(file).ino, from, to: text.length },
        { learn: (stem) => tokenizer.learn(stem), generation: 0 },
        options,
      );
      t.after(() => words.stop());
      let served = 0;
      for (let at = from; ; ) {
        const nl = text.indexOf(10, at);
        if (nl === -1) break;
        // As the store asks: once every line before this one's end was read.
        await words.reached(nl + 1);
        const prepared = words.take(at, nl - at);
        let value: { content?: unknown; _deleted?: boolean } | undefined;
        try {
          value = JSON.parse(text.toString('utf8', at, nl));
        } catch {}
        const memory = typeof value?.content === 'string' && !value._deleted;
        assert.equal(prepared !== undefined, memory, text.toString('utf8', at, nl));
        if (prepared) {
          served++;
          const record = value as { content: string; meta: { tags: string[] }; entities: string[] };
          const doc = `${record.content}\n${record.meta.tags.join(' ')}\n${record.entities.join(' ')}`;
          const expected = plain
            .termIds(doc)
            .map((id) => tokenizer.learn(plain.vocabulary()[id] as string));
          assert.deepEqual([...prepared.terms], expected);
        }
        at = nl + 1;
      }
      assert.ok(served > (fromInside ? 300 : count), `${served} served`);
      // Another line at an offset it read (the log was replaced): nothing.
      assert.equal(words.take(text.length, 10), undefined);
    });
  }

  // The main thread asks for a line past what the worker may hold ahead, before the worker has
  // filled its window: it used to wait for a line the worker would send only once a chunk was
  // taken, and the worker for a chunk to be taken (a start that never ended).
  it('a window filled before the offset asked for: reached() resolves', {
    timeout: 120_000,
  }, async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'memories.jsonl');
    const line = `${JSON.stringify(newMemoryRecord('m', 'kettle '.repeat(140), T0))}\n`;
    fs.writeFileSync(file, line.repeat(Math.ceil((24 << 20) / line.length)));
    const size = fs.statSync(file).size;
    const words = new LoadWords(
      { path: file, ino: fs.statSync(file).ino, from: 0, to: size },
      { learn: () => 0, generation: 0 },
    );
    t.after(() => words.stop());
    await words.reached(size);
    assert.ok(words.take(0, line.length - 1), 'the first line was sent');
  });

  it('reads on through a line of 256 MB without filling its window', {
    timeout: 120_000,
  }, async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'memories.jsonl');
    const line = (id: string) => `${JSON.stringify(newMemoryRecord(id, 'kettle boils', T0))}\n`;
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, line('before'));
    fs.writeSync(fd, '{"x":"');
    const piece = Buffer.alloc(1 << 20, 'a');
    for (let i = 0; i < 256; i++) fs.writeSync(fd, piece);
    fs.writeSync(fd, '"}\n');
    const last = fs.fstatSync(fd).size;
    fs.writeSync(fd, line('after'));
    fs.closeSync(fd);
    const size = fs.statSync(file).size;
    const words = new LoadWords(
      { path: file, ino: fs.statSync(file).ino, from: 0, to: size },
      { learn: () => 0, generation: 0 },
    );
    t.after(() => words.stop());
    await words.reached(size);
    assert.ok(words.take(last, line('after').length - 1), 'the line after it was sent');
  });

  it('sends nothing for another file than the span names', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'memories.jsonl');
    writeLog(file, 50, 4);
    const size = fs.statSync(file).size;
    const words = new LoadWords(
      { path: file, ino: fs.statSync(file).ino + 1, from: 0, to: size },
      { learn: () => 0, generation: 0 },
    );
    await words.reached(size);
    assert.equal(words.take(0, 10), undefined);
    words.stop();
  });
});
