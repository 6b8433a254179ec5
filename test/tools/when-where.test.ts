import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { oneLine } from '../../src/tools/when-where.js';
import { errorText, openTestClient, type TestClient } from '../support.js';

interface Hit {
  memory_id: string;
  date: string;
  ago: string;
  source?: string;
  context?: string;
  neighbours?: { memory_id: string; offset: number; content: string }[];
}

describe('results with their when and where, and time in queries', () => {
  let t: TestClient;
  const ids: string[] = [];
  let old = '';

  before(async () => {
    t = await openTestClient();
    // A trip told 30 days before the clock, then a session of three turns today.
    old = (
      await t.ok<{ memory_id: string }>('save_memory', {
        content: 'We went hiking at the lake with the dog',
        source: 'chat',
        context: 'trip',
      })
    ).memory_id;
    t.clock.advanceDays(30);
    for (const content of [
      'Morning: we talked about hiking boots',
      'We went hiking at the lake again, the dog too',
      'Evening: the dog slept all day after the hike',
    ]) {
      const saved = await t.ok<{ memory_id: string }>('save_memory', {
        content,
        source: 'chat',
        context: 'today',
      });
      ids.push(saved.memory_id);
      t.clock.advanceDays(0.01);
    }
  });
  after(() => t.close());

  it('search_memory says the day, how long ago, the source and the context', async () => {
    const found = await t.ok<{ results: Hit[] }>('search_memory', { query: 'hiking lake dog' });
    const byId = new Map(found.results.map((r) => [r.memory_id, r]));
    assert.equal(byId.get(old)?.ago, '4 weeks ago');
    assert.equal(byId.get(ids[1] as string)?.ago, 'today');
    assert.equal(byId.get(old)?.source, 'chat');
    assert.equal(byId.get(old)?.context, 'trip');
    assert.equal(byId.get(old)?.neighbours, undefined);
  });

  it('lists the neighbours of the same source and context on request', async () => {
    const found = await t.ok<{ results: Hit[] }>('search_memory', {
      query: 'lake again',
      neighbours: 1,
    });
    const hit = found.results.find((r) => r.memory_id === ids[1]);
    assert.deepEqual(
      hit?.neighbours?.map((n) => [n.memory_id, n.offset]),
      [
        [ids[0], -1],
        [ids[2], 1],
      ],
    );
    const text = await t.call('search_memory', { query: 'lake again', neighbours: 1 });
    assert.match(JSON.stringify(text.content), /\+1 \[/);
  });

  it('open_memories and search_unified carry the date too', async () => {
    const opened = await t.ok<{
      memories: { date: string; ago: string; neighbours?: unknown[] }[];
    }>('open_memories', { memory_ids: [old], neighbours: 2 });
    assert.equal(opened.memories[0]?.ago, '4 weeks ago');
    assert.deepEqual(opened.memories[0]?.neighbours, []);
    const unified = await t.ok<{ results: { date?: string; meta_source?: string }[] }>(
      'search_unified',
      { query: 'hiking' },
    );
    assert.ok(unified.results.every((r) => r.date && r.meta_source === 'chat'));
  });

  it('a time in the query lifts the memories of that time; time_filter keeps only them', async () => {
    // Words alone (and its livelier decay score) rank today's turn first.
    const plain = await t.ok<{ results: Hit[] }>('search_memory', {
      query: 'hiking at the lake with the dog',
    });
    assert.equal(plain.results[0]?.memory_id, ids[1]);
    const lifted = await t.ok<{ results: Hit[] }>('search_memory', {
      query: 'hiking at the lake with the dog a month ago',
    });
    assert.equal(lifted.results[0]?.memory_id, old);
    const filtered = await t.ok<{ results: Hit[]; total: number }>('search_memory', {
      query: 'hiking today',
      time_filter: true,
    });
    assert.ok(filtered.total >= 1);
    assert.ok(filtered.results.every((r) => r.ago === 'today'));
    const none = await t.call('search_memory', { query: 'hiking', time_filter: true });
    assert.match(errorText(none), /time_filter is true but the query names no time/);
  });
});

describe('one line of a text', () => {
  it('property: is the first characters of the text with each run of white space one space', () => {
    const piece = fc.constantFrom(
      'a',
      'bc',
      ' ',
      '  ',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      'é',
      '😀',
      ' '.repeat(90),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }),
        fc.integer({ min: 0, max: 120 }),
        (parts, n) => {
          const text = parts.join('');
          assert.equal(oneLine(text, n), text.replace(/\s+/g, ' ').slice(0, n));
        },
      ),
    );
    // A long text whose first characters are all white space: read past its prefix.
    assert.equal(oneLine(`${' \n'.repeat(500)}words here`, 6), ' words');
  });
});
