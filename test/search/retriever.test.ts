import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Retriever } from '../../src/search/retriever.js';
import type { SemanticIndex } from '../../src/search/semantic-index.js';
import { MEMORY_STATUSES, type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import { T0 } from '../support.js';

const record = {
  ...newMemoryRecord('m1', 'Milo likes tuna.\nEspecially on Fridays.', T0, {
    meta: { tags: ['pets'], source: null, context: null, extra: {} },
    entities: ['Milo'],
  }),
  status: 'promoted' as const,
  promoted_at: T0,
};

const everyOne = { statuses: MEMORY_STATUSES, score: () => 1, minScore: null };
const notArchived = MEMORY_STATUSES.filter((s) => s !== 'archived');

/** A retriever over these memories, with a vector side that records what it is told. */
function retrieverOf(...memories: MemoryRecord[]) {
  const told: [string, string][] = [];
  const semantic = {
    upsert: (id: string, text: string) => told.push([id, text]),
  } as unknown as SemanticIndex;
  const retriever = new Retriever({
    engine: { memories: new Map(memories.map((m) => [m.id, m])) },
    semantic,
    settings: {},
    logger: pino({ level: 'silent' }),
  });
  for (const memory of memories) retriever.upsert(memory, undefined);
  const found = async (query: string) =>
    [...(await retriever.rank(query, 10, everyOne))].map((r) => r.record.id);
  return { retriever, told, found };
}

describe('Retriever: ranked rows', () => {
  const tea = newMemoryRecord('tea', 'Green tea at four, green tea at five.', T0);
  const coffee = newMemoryRecord('coffee', 'Coffee at nine, then tea.', T0);
  const archived = {
    ...newMemoryRecord('old', 'Tea in the old house.', T0),
    status: 'archived' as const,
  };

  it('without words: every memory accept keeps, each as relevant as the others', async () => {
    const { retriever } = retrieverOf(tea, coffee, archived);
    const rows = [
      ...(await retriever.rank('', 10, {
        statuses: notArchived,
        score: () => 0.5,
        minScore: null,
      })),
    ];
    assert.deepEqual(
      rows.map((r) => [r.record.id, r.relevance, r.lexical, r.similarity, r.score]),
      [
        ['tea', 1, 1, undefined, 0.5],
        ['coffee', 1, 1, undefined, 0.5],
      ],
    );
  });

  it('with words: BM25 kept as lexical, relevance relative to the best match', async () => {
    const { retriever } = retrieverOf(tea, coffee, archived);
    const rows = [
      ...(await retriever.rank('green tea', 10, {
        statuses: notArchived,
        score: () => 1,
        minScore: null,
      })),
    ];
    const best = rows.find((r) => r.record.id === 'tea');
    const other = rows.find((r) => r.record.id === 'coffee');
    assert.equal(rows.length, 2, 'the archived one was left out');
    assert.equal(best?.relevance, 1);
    assert.ok(other && best && other.lexical > 0 && other.lexical < best.lexical);
    assert.equal(other?.relevance, (other?.lexical ?? 0) / (best?.lexical ?? 1));
    assert.equal(retriever.duplicateOf('  green TEA at four, green tea at five. '), 'tea');
  });
});

describe('Retriever: one document a memory feeds both indexes', () => {
  it('a promoted memory weighs as much as the same memory not promoted (its title is its first line)', async () => {
    const active = { ...record, id: 'm2', status: 'active' as const };
    const { retriever } = retrieverOf(record, active);
    retriever.setNote('m1', {
      title: 'Milo likes tuna.',
      tags: ['pets'],
      body: `${record.content}\n`,
    });
    const rows = [...(await retriever.rank('milo tuna', 10, everyOne))];
    assert.deepEqual(rows.map((r) => [r.record.id, r.relevance]).sort(), [
      ['m1', 1],
      ['m2', 1],
    ]);
  });

  it('indexes a memory again for each change of its note, and only then', async () => {
    const { retriever, told, found } = retrieverOf(record);
    const note = { title: 'T', tags: [], body: 'one' };
    retriever.setNote('m1', note);
    retriever.setNote('m1', { ...note });
    retriever.setNote('m1', { ...note, body: 'two' });
    assert.deepEqual(await found('two'), ['m1']);
    assert.deepEqual(await found('tuna'), []);
    retriever.setNote('m1', undefined);
    retriever.setNote('m1', undefined);
    assert.deepEqual(told, [
      ['m1', record.content],
      ['m1', 'one'],
      ['m1', 'two'],
      ['m1', record.content],
    ]);
    assert.deepEqual(await found('two'), []);
    assert.deepEqual(await found('tuna'), ['m1']);
    assert.equal(retriever.documentOf(record).text, record.content);
  });
});

describe('Retriever: eachMemory', () => {
  it('visits every live memory once with its status and numbers, by ordinal or by id alike', () => {
    const made = Array.from({ length: 40 }, (_, i) => ({
      ...newMemoryRecord(`m${i}`, `Memory number ${i} about tea and boats.`, T0 + i),
      status: MEMORY_STATUSES[i % MEMORY_STATUSES.length] as MemoryRecord['status'],
      use_count: i % 7,
    }));
    const memories = new Map(made.map((m) => [m.id, m]));
    const retriever = new Retriever({
      engine: { memories },
      settings: {},
      logger: pino({ level: 'silent' }),
    });
    for (const memory of made) retriever.upsert(memory, undefined);
    // Some go (their ordinals left empty), one changes its status.
    for (const i of [3, 17, 39]) {
      const gone = memories.get(`m${i}`) as MemoryRecord;
      memories.delete(gone.id);
      retriever.remove(gone);
    }
    const before = memories.get('m5') as MemoryRecord;
    const after = { ...before, status: 'archived' as const };
    memories.set(after.id, after);
    retriever.upsert(after, before);
    const visited = () => {
      const seen: [string, string, number][] = [];
      retriever.eachMemory((id, status, m) => seen.push([id, status, m.use_count]));
      return seen.sort((a, b) => a[0].localeCompare(b[0]));
    };
    const expected = [...memories.values()]
      .map((m) => [m.id, m.status, m.use_count] as [string, string, number])
      .sort((a, b) => a[0].localeCompare(b[0]));
    assert.deepEqual(visited(), expected, 'every memory in the index: walked by ordinal');
    // A memory the index does not hold (another namespace's, say): walked by id, read as it is.
    const outside = newMemoryRecord('zz', 'Not indexed here.', T0);
    memories.set(outside.id, outside);
    assert.deepEqual(visited(), [
      ...expected,
      [outside.id, outside.status, outside.use_count] as [string, string, number],
    ]);
  });
});

describe('Retriever: words matched while the graph searches', () => {
  it('a match made before the graph answered is made again when the index or its buffers moved', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let searches = 0;
    // A meaning side whose search runs elsewhere (as the graph's thread does) and finds nothing.
    const semantic = {
      enabled: true,
      model: 'test/fake:1',
      searchesOffThread: true,
      upsert: () => {},
      embed: async () => [new Float32Array([1, 0])],
      search: async () => {
        searches++;
        await gate;
        return { ids: [], sims: [] };
      },
    } as unknown as SemanticIndex;
    const tea = newMemoryRecord('tea', 'Green tea at four.', T0);
    const coffee = newMemoryRecord('coffee', 'Coffee at nine.', T0);
    const memories = new Map([tea, coffee].map((m) => [m.id, m]));
    const retriever = new Retriever({
      engine: { memories },
      semantic,
      settings: {},
      logger: pino({ level: 'silent' }),
    });
    for (const m of memories.values()) retriever.upsert(m, undefined);
    const ids = async (rows: Promise<Iterable<{ record: MemoryRecord }>>) =>
      [...(await rows)].map((r) => r.record.id).sort();

    const first = ids(retriever.rank('tea', 10, everyOne));
    // Its words are matched once the graph is asked; then, before the graph answers, another
    // search reuses the match buffers and a new memory about tea comes in.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const second = ids(retriever.rank('coffee', 10, everyOne));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(searches, 2, 'both searches asked the meaning side before it answered');
    const chai = newMemoryRecord('chai', 'Spiced tea.', T0);
    memories.set(chai.id, chai);
    retriever.upsert(chai, undefined);
    release();
    assert.deepEqual(await first, ['chai', 'tea']);
    assert.deepEqual(await second, ['coffee']);
  });
});
