import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { nameLift, nameLiftOf, queryNames } from '../../src/memory/entity-ranking.js';
import { placeOf } from '../../src/memory/session-ranking.js';
import { timeLift, timeLiftOf, timeOf } from '../../src/memory/time-ranking.js';
import { LexicalIndex, valuesOf } from '../../src/search/lexical-index.js';
import { rankFactsOf, rowFacts } from '../../src/search/rank-facts.js';
import { RankedRows } from '../../src/search/ranked-rows.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { openTestMemory, T0 } from '../support.js';

const DAY = 86_400;
const factsOf = (record: ReturnType<typeof newMemoryRecord>) =>
  rowFacts(record.created_at, rankFactsOf(record));

describe('the facts a search ranks by, kept by the index', () => {
  it('property: lift as the record does, or say that the record must be read', () => {
    const word = fc.constantFrom(
      'Melanie',
      "Caroline's",
      'Jon',
      'Gina',
      'Maria',
      'John',
      'Thanks,',
      'she',
      'painted',
      'yesterday',
      'in',
      'May',
      '2023',
      'last',
      'summer',
      'week',
    );
    const name = fc.constantFrom('Melanie', 'Caroline', 'Jon', 'Gina', 'Maria', 'John');
    const query = fc.constantFrom(
      'What did Melanie paint?',
      'When did Caroline and Jon meet?',
      'What did Gina say last summer?',
      'in May 2023',
      'when did Maria move',
      'What about John?',
      'paint',
    );
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 30 }),
        fc.array(name, { maxLength: 4 }),
        fc.constantFrom(null, 'chat', 'mail'),
        fc.constantFrom(null, 'day 1', 'day 2'),
        fc.integer({ min: 0, max: 400 }),
        query,
        (words, entities, source, context, day, q) => {
          const record = newMemoryRecord('m', words.join(' ') || 'nothing', T0 + day * DAY, {
            entities,
            meta: { tags: [], source, context, extra: {} },
          });
          const facts = factsOf(record);
          const names = queryNames(q);
          if (names) {
            const lift = nameLiftOf(facts, names);
            if (lift !== undefined) assert.equal(lift, nameLift(record, names));
          }
          const time = timeOf(q, T0 + 420 * DAY);
          if (time) {
            const lift = timeLiftOf(facts, time);
            if (lift !== undefined) assert.equal(lift, timeLift(record, time));
          }
          assert.equal(facts.session, placeOf(record).key);
          assert.equal(facts.createdAt, record.created_at);
        },
      ),
    );
  });

  it('tell the lift without the record unless the names or days they keep cannot', () => {
    const names = queryNames('What did Melanie paint?');
    assert.ok(names);
    const at = (content: string, entities: string[] = []) =>
      nameLiftOf(factsOf(newMemoryRecord('m', content, T0, { entities })), names);
    assert.equal(at('Melanie: I painted a lake.'), 1.4);
    assert.equal(at('Caroline: Thanks, Melanie!'), 1.1);
    assert.equal(at('Caroline: I painted a tree.'), 1);
    assert.equal(at('She painted a lake.', ['Melanie']), 1.4);
    // Past the two names kept besides the subject, one the filter of the rest may hold needs
    // the record; one it does not hold, not.
    assert.equal(at('Caroline: Jon, Gina and Maria met Melanie.'), undefined);
    assert.equal(at('Caroline: Jon, Gina and Maria met John.'), 1);
    // A memory that says no time is lifted by when it was saved alone; one that says a time, by
    // the days it spans: the record is needed only when they cross the edge of a range asked.
    const said = (query: string, content: string) => {
      const time = timeOf(query, T0 + 30 * DAY);
      assert.ok(time);
      return timeLiftOf(factsOf(newMemoryRecord('m', content, T0)), time);
    };
    assert.equal(said('When did she paint?', 'She painted a lake.'), 1);
    assert.equal(said('When did she paint?', 'She painted a lake yesterday.'), 1.2);
    const day = new Date((T0 - DAY) * 1000).toISOString().slice(0, 10);
    const month = new Date((T0 - DAY) * 1000).toLocaleString('en', {
      month: 'long',
      timeZone: 'UTC',
    });
    const year = new Date((T0 - DAY) * 1000).getUTCFullYear();
    assert.equal(said(`What did she paint on ${day}?`, 'She painted a lake yesterday.'), 1.5);
    assert.equal(said(`What did she paint in ${month} ${year}?`, 'She painted a lake in 1999.'), 1);
    assert.equal(said(`What did she paint in ${year}?`, 'She painted it yesterday.'), 1.5);
    assert.equal(
      said(`What did she paint on ${day}?`, 'She painted lakes from 2 days ago to today.'),
      undefined,
    );
  });

  it('spare a search the records of its best rows: only the page is read', async () => {
    const t = await openTestMemory();
    try {
      for (let i = 0; i < 300; i++) {
        const who = ['Melanie', 'Caroline', 'Jon'][i % 3] as string;
        await t.memory.writing.save({
          content: `${who}: I painted picture number ${i} of the lake, Melanie.`,
        });
      }
      const table = t.store.memories;
      const get = table.get.bind(table);
      let reads = 0;
      (table as { get: typeof table.get }).get = (id: string) => {
        reads++;
        return get(id);
      };
      const found = await t.memory.recall.search({
        query: 'What did Melanie paint by the lake?',
        top_k: 10,
        include_review_candidates: false,
      });
      assert.equal(found.results.length, 10);
      // The page (its records, their when and where); before, the 100 best rows were read.
      assert.ok(reads <= 20, `${reads} records read`);
    } finally {
      await t.close();
    }
  });

  it("of a memory written are worked out after the write's turn, or at a match before it", async () => {
    // Counts the reads of `meta`: the rank facts read its source and context, the rest not.
    const counted = (record: ReturnType<typeof newMemoryRecord>) => {
      const seen = { meta: 0 };
      const proxy = new Proxy(record, {
        get: (target, key, receiver) => {
          if (key === 'meta') seen.meta++;
          return Reflect.get(target, key, receiver);
        },
      });
      return { proxy, seen };
    };
    const saved = newMemoryRecord('saved', 'Melanie: I painted a lake yesterday.', T0, {
      meta: { tags: [], source: 'chat', context: null, extra: {} },
    });
    const index = new LexicalIndex(() => undefined);
    const first = counted(saved);
    index.upsert(first.proxy, saved.content, undefined);
    assert.equal(first.seen.meta, 0, 'the write did not wait for the facts');
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(first.seen.meta > 0, 'worked out once the turn was over');
    const rowsOf = () => {
      const rows = new RankedRows(false, () => undefined, index);
      rows.push('saved', 1, undefined, 1, index.ordinalOf('saved'));
      return rows;
    };
    assert.deepEqual(rowsOf().facts(0), factsOf(saved));
    // Written again and matched in the same turn: the match finds them known.
    const moved = { ...saved, meta: { ...saved.meta, source: 'email' } };
    index.upsert(moved, moved.content, { record: saved, words: saved.content });
    index.match('lake', ['active']);
    assert.deepEqual(rowsOf().facts(0), factsOf(moved));
  });

  it('left unknown by a load, are learnt from the record the first search reads', () => {
    const twin = newMemoryRecord('twin', 'Melanie: I painted a lake.', T0);
    const loaded = newMemoryRecord('loaded', 'Melanie: I painted a lake.', T0, {
      meta: { tags: [], source: 'chat', context: null, extra: {} },
    });
    const records = new Map([twin, loaded].map((r) => [r.id, r]));
    let reads = 0;
    const lookup = (id: string) => {
      reads++;
      return records.get(id);
    };
    const index = new LexicalIndex(lookup);
    index.upsert(twin, twin.content, undefined);
    // As a load's worker gives it: the words, and the facts unknown.
    index.upsert(loaded, loaded.content, undefined, {
      terms: Int32Array.from(index.termsOf(loaded.content)),
      values: Float64Array.from(valuesOf(loaded, undefined, false)),
    });
    const rowsOf = () => {
      const rows = new RankedRows(false, lookup, index);
      rows.push('loaded', 1, undefined, 1, index.ordinalOf('loaded'));
      return rows;
    };
    const first = rowsOf();
    assert.equal(first.facts(0), undefined);
    first.record(0);
    assert.equal(reads, 1);
    assert.deepEqual(rowsOf().facts(0), factsOf(loaded));
  });
});
