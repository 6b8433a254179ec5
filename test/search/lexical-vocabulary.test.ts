// The words index's vocabulary is what live memories hold: a tenant that updates or deletes its
// memories to ever new words does not grow the server's memory without bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LexicalIndex } from '../../src/search/lexical-index.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';

const ALL = ['active', 'promoted', 'archived'] as const;

function index() {
  const records = new Map<string, MemoryRecord>();
  const lexical = new LexicalIndex((id) => records.get(id));
  const put = (id: string, content: string) => {
    const previous = records.get(id);
    const record = newMemoryRecord(id, content, 1);
    records.set(id, record);
    lexical.upsert(record, content, previous && { record: previous, words: previous.content });
  };
  const drop = (id: string) => {
    const previous = records.get(id) as MemoryRecord;
    records.delete(id);
    lexical.remove(previous, previous.content);
  };
  const found = (query: string) => {
    const m = lexical.match(query, ALL);
    return [...m.ordinals.subarray(0, m.count)].map((o) => lexical.idAt(o)).sort();
  };
  const vocabulary = () => lexical.state(() => 0).vocabulary.length;
  return { put, drop, found, vocabulary };
}

describe('the vocabulary of the words index', () => {
  it('forgets the stems no memory holds: 100 updates to 6,000 new words each stay bounded', () => {
    const { put, drop, found, vocabulary } = index();
    put('stable', 'kettle boils water quickly');
    put('gone', 'teapot whistles loudly');
    let n = 0;
    const fresh = () => Array.from({ length: 6000 }, () => `q${(n++).toString(36)}z`).join(' ');
    let last = '';
    for (let round = 0; round < 100; round++) {
      last = fresh();
      put('churn', last);
      if (round === 50) drop('gone');
    }
    // 600,000 words were indexed (the vocabulary checked at 65,536 stems, then each time it
    // doubles: several compactions); what is held is the live memories' and at most twice that
    // past the floor where counting starts.
    assert.ok(vocabulary() < 200_000, `${vocabulary()} stems`);
    assert.deepEqual(found('kettle water'), ['stable']);
    assert.deepEqual(found('teapot'), []);
    const word = last.split(' ')[1] as string;
    assert.deepEqual(found(word), ['churn']);
    assert.deepEqual(found('q0z'), [], 'a word of an earlier version');
    // Ids renumbered: a removal still takes the right words out, and words learned again work.
    drop('stable');
    assert.deepEqual(found('kettle'), []);
    put('again', 'kettle again');
    assert.deepEqual(found('kettle'), ['again']);
  });
});
