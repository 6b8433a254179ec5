import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { seededRandom } from '../../bench/lib/content.js';
import { withRoom } from '../../src/platform/room.js';
import {
  ALL_CLASSES,
  type Bm25Params,
  Bm25Index as IdIndex,
  type LexicalHits,
} from '../../src/search/bm25.js';

// The index works on term ids; these tests speak in words, numbered here as the Tokenizer would.
const vocabulary = new Map<string, number>();
const termIds = (words: readonly string[]) =>
  words.map((w) => {
    let id = vocabulary.get(w);
    if (id === undefined) {
      id = vocabulary.size;
      vocabulary.set(w, id);
    }
    return id;
  });

class Bm25Index {
  readonly inner: IdIndex;
  constructor(params?: Bm25Params) {
    this.inner = new IdIndex(params);
  }
  get size() {
    return this.inner.size;
  }
  add(id: string, words: readonly string[], previous?: readonly string[]) {
    this.inner.add(id, termIds(words), previous && termIds(previous));
  }
  remove(id: string, words: readonly string[]) {
    this.inner.remove(id, termIds(words));
  }
  search(words: readonly string[]): LexicalHits {
    return this.inner.search(termIds(words));
  }
  clear() {
    this.inner.clear();
  }
}

type Docs = ReadonlyMap<string, readonly string[]>;

const scores = (hits: LexicalHits): Map<string, number> => {
  assert.equal(hits.ids.length, hits.scores.length);
  return new Map(hits.ids.map((id, i) => [id, hits.scores[i] as number]));
};

const build = (docs: Docs): Bm25Index => {
  const index = new Bm25Index();
  for (const [id, tokens] of docs) index.add(id, tokens);
  return index;
};

/** The same ids with the same scores, to 1e-9. */
const sameScores = (actual: LexicalHits, expected: LexicalHits) => {
  const a = scores(actual);
  const e = scores(expected);
  assert.deepEqual([...a.keys()].sort(), [...e.keys()].sort());
  for (const [id, score] of e) {
    const got = a.get(id) as number;
    assert.ok(Math.abs(got - score) <= 1e-9, `${id}: ${got} vs ${score}`);
  }
};

/**
 * Documents `m0`, `m1`, ... of `docs`, those added before `freezeAt` frozen (in the typed base,
 * the others in loose lists), then those `removed` says taken out.
 */
function frozenAt(docs: string[][], removed: boolean[], freezeAt: number): IdIndex {
  const index = new IdIndex();
  docs.forEach((tokens, i) => {
    if (i === freezeAt) index.freeze();
    index.add(`m${i}`, termIds(tokens));
  });
  docs.forEach((tokens, i) => {
    if (removed[i]) index.remove(`m${i}`, termIds(tokens));
  });
  return index;
}

const corpus: Docs = new Map([
  ['ralph', ['ralph', 'prefer', 'tea', 'morn']],
  ['deploy', ['deploi', 'friday', 'never', 'deploi']],
  ['tea', ['green', 'tea', 'kettl', 'tea']],
  ['cats', ['cat', 'sleep', 'sofa']],
  ['mix', ['ralph', 'cat', 'friday']],
]);

describe('Bm25Index', () => {
  it('scores a document holding a query term above 0 and leaves out one without', () => {
    const hits = scores(build(corpus).search(['tea']));
    assert.deepEqual([...hits.keys()].sort(), ['ralph', 'tea']);
    for (const score of hits.values()) assert.ok(score > 0);
    assert.equal(hits.has('deploy'), false);
  });

  it('finds nothing for unknown terms or an empty index', () => {
    assert.deepEqual(build(corpus).search(['zebra']), { ids: [], scores: [], docs: [] });
    assert.deepEqual(build(corpus).search([]), { ids: [], scores: [], docs: [] });
    assert.deepEqual(new Bm25Index().search(['tea']), { ids: [], scores: [], docs: [] });
  });

  it('weighs rarer terms more (idf)', () => {
    const docs = new Map<string, string[]>([['target', ['rare', 'common']]]);
    for (let i = 0; i < 10; i++) docs.set(`d${i}`, ['common', `filler${i}`]);
    const index = build(docs);
    const rare = scores(index.search(['rare'])).get('target') as number;
    const common = scores(index.search(['common'])).get('target') as number;
    assert.ok(rare > common, `rare ${rare} should outweigh common ${common}`);
  });

  it('ranks a shorter document higher for the same term frequency (b)', () => {
    const docs = new Map([
      ['short', ['tea', 'a']],
      ['long', ['tea', 'a', 'b', 'c', 'd', 'e', 'f', 'g']],
    ]);
    const hits = scores(build(docs).search(['tea']));
    assert.ok((hits.get('short') as number) > (hits.get('long') as number));
    // Without length normalisation the two are equal, so the gap above is b's doing.
    const flat = new Bm25Index({ k1: 1.2, b: 0 });
    for (const [id, tokens] of docs) flat.add(id, tokens);
    const flatHits = scores(flat.search(['tea']));
    assert.equal(flatHits.get('short'), flatHits.get('long'));
  });

  it('scores higher for more occurrences, with saturation', () => {
    const docs = new Map([
      ['once', ['tea', 'x', 'y', 'z']],
      ['twice', ['tea', 'tea', 'y', 'z']],
      ['thrice', ['tea', 'tea', 'tea', 'z']],
      ['other', ['coffe', 'x', 'y', 'z']],
    ]);
    const hits = scores(build(docs).search(['tea']));
    const [once, twice, thrice] = ['once', 'twice', 'thrice'].map((id) => hits.get(id) as number);
    assert.ok(once !== undefined && twice !== undefined && thrice !== undefined);
    assert.ok(twice > once && thrice > twice);
    assert.ok(thrice - twice < twice - once, 'each extra occurrence adds less');
  });

  it('sums the contributions of several query terms, counting a repeated query term once', () => {
    const index = build(corpus);
    const ralph = scores(index.search(['ralph'])).get('mix') as number;
    const cat = scores(index.search(['cat'])).get('mix') as number;
    const both = scores(index.search(['ralph', 'cat', 'cat'])).get('mix') as number;
    assert.ok(Math.abs(both - (ralph + cat)) <= 1e-12);
  });

  it('remove() takes a document out and keeps document frequencies right', () => {
    const index = build(corpus);
    index.remove('tea', corpus.get('tea') ?? []);
    index.remove('mix', corpus.get('mix') ?? []);
    assert.equal(index.size, 3);
    const remaining = new Map([...corpus].filter(([id]) => id !== 'tea' && id !== 'mix'));
    const fresh = build(remaining);
    for (const query of [['tea'], ['ralph'], ['cat', 'friday'], ['deploi', 'tea', 'sleep']]) {
      const hits = index.search(query);
      assert.equal(hits.ids.includes('tea'), false);
      assert.equal(hits.ids.includes('mix'), false);
      sameScores(hits, fresh.search(query));
    }
  });

  it('ignores removing an unknown id', () => {
    const index = build(corpus);
    index.remove('nope', ['tea']);
    assert.equal(index.size, corpus.size);
    sameScores(index.search(['tea']), build(corpus).search(['tea']));
  });

  it('takes a document back after it was removed', () => {
    const index = build(corpus);
    index.remove('tea', corpus.get('tea') ?? []);
    index.add('tea', ['black', 'tea']);
    const fresh = build(new Map([...corpus, ['tea', ['black', 'tea']]]));
    assert.equal(index.size, corpus.size);
    for (const query of [['tea'], ['green'], ['black'], ['kettl']]) {
      sameScores(index.search(query), fresh.search(query));
    }
    assert.equal(index.search(['green']).ids.length, 0);
  });

  it('replaces a document added again under the same id with its previous tokens', () => {
    const index = build(corpus);
    index.add('cats', ['dog', 'bark'], corpus.get('cats'));
    const fresh = build(new Map([...corpus, ['cats', ['dog', 'bark']]]));
    assert.equal(index.size, corpus.size);
    for (const query of [['cat'], ['dog'], ['sleep', 'ralph']]) {
      sameScores(index.search(query), fresh.search(query));
    }
  });

  it('matches a freshly built index after any removes and re-adds (property)', () => {
    const vocabulary = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const doc = fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.array(fc.option(doc, { nil: undefined }), { minLength: 30, maxLength: 30 }),
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 4 }),
        (docs, removed, readded, query) => {
          const index = new Bm25Index();
          const live = new Map<string, string[]>();
          docs.forEach((tokens, i) => {
            index.add(`m${i}`, tokens);
            live.set(`m${i}`, tokens);
          });
          docs.forEach((tokens, i) => {
            if (!removed[i]) return;
            index.remove(`m${i}`, tokens);
            live.delete(`m${i}`);
            const again = readded[i];
            if (again) {
              index.add(`m${i}`, again);
              live.set(`m${i}`, again);
            }
          });
          assert.equal(index.size, live.size);
          sameScores(index.search(query), build(live).search(query));
        },
      ),
    );
  });

  it('vacuums after many removes without changing results', () => {
    const tokensOf = (i: number) => [`t${i % 7}`, `u${i % 13}`, `v${i % 29}`, `id${i}`];
    const index = new Bm25Index();
    for (let i = 0; i < 3000; i++) index.add(`m${i}`, tokensOf(i));
    // Remove two in three; the dead ordinals soon outnumber the live ones.
    const kept = new Map<string, string[]>();
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 0) kept.set(`m${i}`, tokensOf(i));
      else index.remove(`m${i}`, tokensOf(i));
    }
    // Private, read only to check that the vacuum ran: dead ordinals were dropped.
    const slots = (index.inner as unknown as { ids: unknown[] }).ids.length;
    assert.ok(slots < 3000, `expected a vacuum to drop dead ordinals, still ${slots}`);
    assert.equal(index.size, 1000);
    const queries = [['t3'], ['u5', 'v11'], ['id3000'], ['id2997', 't0'], ['id2998']];
    for (const query of queries) sameScores(index.search(query), build(kept).search(query));
    // The renumbered index still takes adds and removes.
    for (let i = 3000; i < 3100; i++) {
      index.add(`m${i}`, tokensOf(i));
      kept.set(`m${i}`, tokensOf(i));
    }
    index.remove('m0', tokensOf(0));
    kept.delete('m0');
    for (const query of [...queries, ['id3050'], ['id0']]) {
      sameScores(index.search(query), build(kept).search(query));
    }
  });

  it('clear() empties it', () => {
    const index = build(corpus);
    index.clear();
    assert.equal(index.size, 0);
    assert.deepEqual(index.search(['tea']), { ids: [], scores: [], docs: [] });
    index.add('x', ['tea']);
    assert.deepEqual(index.search(['tea']).ids, ['x']);
  });

  it('match() walks only the classes asked for, in first-met order, with the same scores', () => {
    const index = new IdIndex<string>();
    const docs: [string, string[], number][] = [
      ['a', ['tea', 'cat'], 1],
      ['b', ['cat'], 2],
      ['c', ['tea'], 3],
      ['d', ['cat', 'tea', 'tea'], 1],
    ];
    for (const [id, words, cls] of docs) index.add(id, termIds(words), undefined, id, cls);
    const all = index.search(termIds(['cat', 'tea']));
    const matched = (mask: number) => {
      const { ordinals, scores, count } = index.match(termIds(['cat', 'tea']), mask);
      return Array.from({ length: count }, (_, i) => [
        index.docAt(ordinals[i] as number),
        scores[i] as number,
      ]);
    };
    // Every class: search's hits, in its order ('cat' postings first, then the new 'tea' ones).
    assert.deepEqual(
      matched(~1),
      all.ids.map((id, i) => [id, all.scores[i]]),
    );
    assert.deepEqual(all.ids, ['a', 'b', 'd', 'c']);
    // Classes 1 and 3: the others are left out, the scores do not change.
    const some = matched((1 << 1) | (1 << 3));
    assert.deepEqual(
      some,
      all.ids.map((id, i) => [id, all.scores[i]]).filter(([id]) => id !== 'b'),
    );
    // setDoc moves a document to another class; a removed one is never matched.
    index.setDoc('a', 'a', 2);
    index.remove('d', termIds(['cat', 'tea', 'tea']));
    assert.deepEqual(
      matched(1 << 2).map(([id]) => id),
      ['a', 'b'],
    );
  });

  it('termScore is what each term adds to a match, frozen postings or not (property)', () => {
    const words = ['a', 'b', 'c', 'd', 'e', 'f'];
    const doc = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.nat({ max: 40 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        (docs, removed, freezeAt, query) => {
          const index = frozenAt(docs, removed, freezeAt);
          const terms = [...new Set(termIds(query))];
          const matches = index.match(terms, ALL_CLASSES);
          assert.equal(matches.count, index.search(terms).ids.length);
          for (let j = 0; j < matches.count; j++) {
            const ordinal = matches.ordinals[j] as number;
            const sum = terms.reduce((total, term) => total + index.termScore(term, ordinal), 0);
            assert.ok(Math.abs(sum - (matches.scores[j] as number)) <= 1e-9);
          }
          // A live document without the query's words gets nothing from them.
          docs.forEach((tokens, i) => {
            const ordinal = index.ordinal(`m${i}`);
            if (ordinal === undefined || tokens.some((w) => query.includes(w))) return;
            for (const term of terms) assert.equal(index.termScore(term, ordinal), 0);
          });
        },
      ),
    );
  });

  it('termScores gives what termScore gives, one by one, to the last bit (property)', () => {
    const words = ['a', 'b', 'c', 'd', 'e', 'f'];
    const doc = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 60 }),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        fc.nat({ max: 60 }),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        (docs, removed, freezeAt, asked) => {
          const index = frozenAt(docs, removed, freezeAt);
          const ordinals = Int32Array.from(
            docs.flatMap((_, i) => {
              const ordinal = index.ordinal(`m${i}`);
              return ordinal !== undefined && asked[i] ? [ordinal] : [];
            }),
          ).sort();
          for (const term of termIds([...words, 'never-said'])) {
            const scores = Float64Array.from(ordinals, () => Number.NaN);
            index.termScores(term, ordinals, scores);
            ordinals.forEach((ordinal, k) => {
              const one = index.termScore(term, ordinal);
              assert.equal(scores[k], one);
            });
          }
        },
      ),
    );
  });

  it('a word said more than 65,535 times in a document counts 65,535 times, frozen or not', () => {
    const [often, once] = termIds(['said-very-often', 'said-once']) as [number, number];
    const loose = new IdIndex();
    const capped = new IdIndex();
    for (const index of [loose, capped]) {
      index.add('long', [...new Array<number>(70_000).fill(often), once]);
      index.add('short', [often, once]);
    }
    capped.freeze();
    const scoreOf = (index: IdIndex) => index.termScore(often, index.ordinal('long') as number);
    assert.equal(scoreOf(loose), scoreOf(capped));
    // What 65,535 occurrences add, not what 70,000 would: the formula with each tf.
    const reference = new IdIndex();
    reference.add('long', [
      ...new Array<number>(65_535).fill(often),
      ...new Array<number>(4_466).fill(once),
    ]);
    reference.add('short', [often, once]);
    assert.equal(scoreOf(capped), scoreOf(reference));
    assert.deepEqual(capped.search([often]).ids, loose.search([often]).ids);
  });

  it("a common word's postings add what the formula gives, to the last bit, whatever the tf and length", () => {
    // Past some thousands of postings a term's walk adds from a table by (tf, length): beyond
    // the table (a tf over 4, 256 words or more) it works the number out. Both must be the
    // formula's own number (termScore, one term), or rankings would move with a store's size.
    const random = seededRandom(3);
    const [common, other] = termIds(['common-word', 'other-word']) as [number, number];
    const index = new IdIndex();
    for (let i = 0; i < 12_000; i++) {
      const length = 1 + Math.floor(random() * (random() < 0.1 ? 600 : 120));
      const tf = Math.min(length, 1 + Math.floor(random() * (random() < 0.1 ? 8 : 3)));
      if (i === 9000) index.freeze();
      const terms = [...Array(tf).fill(common), ...Array(length - tf).fill(other)];
      index.add(`m${i}`, random() < 0.2 ? terms.slice(tf) : terms);
    }
    const matches = index.match([common], ALL_CLASSES);
    assert.ok(matches.count > 9000);
    for (let j = 0; j < matches.count; j++) {
      const ordinal = matches.ordinals[j] as number;
      assert.equal(matches.scores[j], index.termScore(common, ordinal));
    }
  });

  it('taken whole from a state, adds the next documents without copying its columns', () => {
    const [word] = termIds(['restored-word']) as [number];
    const params = { k1: 1.2, b: 0.3, values: 1 };
    const index = new IdIndex(params);
    for (let i = 0; i < 5000; i++) index.add(`m${i}`, [word], undefined, undefined, 1, [i]);
    const restored = new IdIndex(params);
    restored.restore(
      index.state((id) => Number(id.slice(1))),
      (key) => `m${key}`,
    );
    // The columns a start filled are the ones the saves after it write to (a copy of all of
    // them at twice their size was the peak of a next start's memory).
    const columns = (x: IdIndex) => (x as unknown as { values: Float64Array[] }).values[0];
    const before = columns(restored);
    for (let i = 5000; i < 5500; i++) restored.add(`m${i}`, [word], undefined, undefined, 1, [i]);
    assert.equal(columns(restored), before);
    assert.equal(restored.valueAt(restored.ordinal('m5499') as number, 0), 5499);
    assert.equal(restored.search([word]).ids.length, 5500);
  });

  it("keeps a state's columns of a number a document as read when they begin buffers with room (a sidecar's)", () => {
    const [word] = termIds(['kept-word']) as [number];
    const params = { k1: 1.2, b: 0.3, values: 2 };
    const index = new IdIndex(params);
    for (let i = 0; i < 3000; i++) index.add(`m${i}`, [word], undefined, undefined, 1, [i, -i]);
    const state = index.state((id) => Number(id.slice(1)));
    // As readSidecar reads a column its owner grows: a buffer of its own, room past the rows.
    const room = withRoom(3000);
    const roomy = <T extends Int32Array | Uint8Array | Float64Array>(
      column: T,
      make: (buffer: ArrayBuffer, length: number) => T,
    ): T => {
      const read = make(new ArrayBuffer(room * column.BYTES_PER_ELEMENT), column.length);
      read.set(column);
      return read;
    };
    const read = {
      ...state,
      lengths: roomy(state.lengths, (b, n) => new Int32Array(b, 0, n)),
      classes: roomy(state.classes, (b, n) => new Uint8Array(b, 0, n)),
      values: state.values.map((c) => roomy(c, (b, n) => new Float64Array(b, 0, n))),
    };
    const restored = new IdIndex(params);
    restored.restore(read, (key) => `m${key}`);
    const own = restored as unknown as {
      lengths: Int32Array;
      classes: Uint8Array;
      values: Float64Array[];
    };
    assert.equal(own.lengths.buffer, read.lengths.buffer, 'the lengths as read');
    assert.equal(own.classes.buffer, read.classes.buffer, 'the classes as read');
    assert.equal(own.values[1]?.buffer, read.values[1]?.buffer, 'the values as read');
    // A state without room (the index's own copy) is copied: the state is never written to.
    const copied = new IdIndex(params);
    copied.restore(state, (key) => `m${key}`);
    assert.notEqual(
      (copied as unknown as { lengths: Int32Array }).lengths.buffer,
      state.lengths.buffer,
    );
    // The rows past the ones read are the next documents', and answer as in the index saved.
    const values = own.values[1];
    for (let i = 3000; i < 3100; i++) {
      restored.add(`m${i}`, [word], undefined, undefined, 1, [i, -i]);
      index.add(`m${i}`, [word], undefined, undefined, 1, [i, -i]);
    }
    assert.equal(own.values[1], values, 'no copy for the room used');
    assert.equal(restored.valueAt(restored.ordinal('m3099') as number, 1), -3099);
    assert.deepEqual(restored.search([word]), index.search([word]));
  });

  it("takes a state's table of ids as it was, and builds one again when it cannot be one", () => {
    const words = termIds(['table-a', 'table-b']) as number[];
    const index = new IdIndex();
    for (let i = 0; i < 4000; i++) index.add(`m${i}`, [words[i % 2] as number]);
    index.remove('m10', [words[0] as number]);
    const state = index.state((id) => Number(id.slice(1)));
    const tableOf = (x: IdIndex) =>
      (x as unknown as { ordinalOf: { table: Int32Array } }).ordinalOf.table;
    assert.ok(state.idTable);
    const kept = new IdIndex();
    kept.restore(state, (key) => `m${key}`);
    assert.deepEqual(tableOf(kept), state.idTable, 'the buckets saved');
    // A table that names a document past the index: built again from the ids, the same answers.
    const spoilt = state.idTable.slice();
    spoilt[spoilt.findIndex((x, j) => j % 2 === 0 && x > 0)] = 4001;
    const rebuilt = new IdIndex();
    rebuilt.restore({ ...state, idTable: spoilt }, (key) => `m${key}`);
    assert.notDeepEqual(tableOf(rebuilt), spoilt);
    for (const x of [kept, rebuilt]) {
      assert.equal(x.ordinal('m3999'), index.ordinal('m3999'));
      assert.equal(x.ordinal('m10'), undefined);
      assert.deepEqual(x.search([words[1] as number]), index.search([words[1] as number]));
    }
  });
});
