import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import {
  type FactCandidate,
  type FactJudge,
  type FactStatement,
  judgeFacts,
} from '../../src/memory/facts/judge.js';
import { ENGINES, type Engine, engineAbsent, openTestMemory, tempDir } from '../support.js';
import { ruleJudge } from './fact-rules.js';

const open = (engine: Engine, judge: FactJudge = ruleJudge, dir = tempDir()) =>
  openTestMemory({}, dir, { engine, judgeFacts: judge });

const ids = (found: { results: { memory_id: string }[] }) =>
  found.results.map((r) => r.memory_id).sort();

for (const engine of ENGINES) {
  describe(`supersession and conflicts on save (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    it('a newer value supersedes: out of search, shown when asked, the chain both ways in open', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const boston = await m.memory.writing.save({ content: 'Caroline lives in Boston.' });
      assert.deepEqual(boston.supersedes, []);
      m.clock.advanceDays(30);
      const denver = await m.memory.writing.save({ content: 'Caroline lives in Denver now.' });
      assert.deepEqual(denver.supersedes, [
        { memory_id: boston.memory_id, content: 'Caroline lives in Boston.' },
      ]);
      assert.deepEqual(denver.conflicts, []);
      assert.equal(m.store.memories.get(boston.memory_id)?.status, 'superseded');

      const plain = await m.memory.recall.search({ query: 'Caroline lives' });
      assert.deepEqual(ids(plain), [denver.memory_id]);
      const all = await m.memory.recall.search({
        query: 'Caroline lives',
        include_superseded: true,
      });
      assert.deepEqual(ids(all), [boston.memory_id, denver.memory_id].sort());
      const old = all.results.find((r) => r.memory_id === boston.memory_id);
      assert.equal(old?.superseded_by, denver.memory_id);
      const byStatus = await m.memory.recall.search({ status: ['superseded'] });
      assert.deepEqual(ids(byStatus), [boston.memory_id]);
      const unified = await m.memory.recall.searchUnified({ query: 'Caroline' });
      assert.deepEqual(
        unified.results.map((r) => r.memory_id),
        [denver.memory_id],
      );
      const unifiedAll = await m.memory.recall.searchUnified({
        query: 'Caroline',
        include_superseded: true,
      });
      assert.equal(unifiedAll.results.length, 2);

      const opened = await m.memory.recall.open({
        memory_ids: [boston.memory_id, denver.memory_id],
      });
      const [a, b] = opened.memories;
      assert.equal(a?.status, 'superseded');
      assert.deepEqual(a?.superseded_by, {
        memory_id: denver.memory_id,
        content: 'Caroline lives in Denver now.',
      });
      assert.deepEqual(a?.supersedes, []);
      assert.equal(b?.superseded_by, null);
      assert.deepEqual(b?.supersedes, [
        { memory_id: boston.memory_id, content: 'Caroline lives in Boston.' },
      ]);

      // Counted, listed by the graph with its status, out of the review queue.
      const stats = await m.memory.stats.summary();
      assert.equal(stats.by_status.superseded, 1);
      const graph = await m.memory.graph.read({});
      assert.equal(graph.memories.find((x) => x.id === boston.memory_id)?.status, 'superseded');
    });

    it('saving the same content again reinforces it, and is judged as nothing', async (t) => {
      let judged = 0;
      const counting: FactJudge = (s, c) => {
        judged++;
        return ruleJudge(s, c);
      };
      const m = await open(engine, counting);
      t.after(() => m.close());
      await m.memory.writing.save({ content: 'Caroline lives in Boston.' });
      const before = judged;
      const again = await m.memory.writing.save({ content: 'Caroline lives in Boston.' });
      assert.equal(again.deduplicated, true);
      assert.deepEqual(again.supersedes, []);
      assert.equal(judged, before, 'the judge was not asked');
    });

    it('restore_memory of the superseded one, or update_memory of either, undoes the link', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const pair = async (name: string) => {
        const a = await m.memory.writing.save({ content: `${name} lives in Oslo.` });
        const b = await m.memory.writing.save({ content: `${name} lives in Rome.` });
        assert.deepEqual(
          b.supersedes.map((s) => s.memory_id),
          [a.memory_id],
        );
        return [a.memory_id, b.memory_id] as const;
      };
      const current = (id: string) => {
        const r = m.store.memories.get(id);
        return { status: r?.status, by: r?.superseded_by, supersedes: r?.supersedes };
      };

      const [a1, b1] = await pair('Dana');
      const restored = await m.memory.forgetting.restore({ memory_id: a1 });
      assert.equal(restored.status, 'active');
      assert.deepEqual(
        restored.superseded_undone?.map((s) => s.memory_id),
        [a1],
      );
      assert.deepEqual(current(a1), { status: 'active', by: undefined, supersedes: undefined });
      assert.deepEqual(current(b1), { status: 'active', by: undefined, supersedes: undefined });

      const [a2, b2] = await pair('Dane');
      const updatedNewer = await m.memory.editing.update({ memory_id: b2, tags: ['travel'] });
      assert.deepEqual(
        updatedNewer.superseded_undone?.map((s) => s.memory_id),
        [a2],
      );
      assert.equal(current(a2).status, 'active');
      assert.equal(current(b2).supersedes, undefined);

      const [a3, b3] = await pair('Dina');
      const updatedOlder = await m.memory.editing.update({ memory_id: a3, tags: ['travel'] });
      assert.deepEqual(
        updatedOlder.superseded_undone?.map((s) => s.memory_id),
        [a3],
      );
      assert.deepEqual(current(a3), { status: 'active', by: undefined, supersedes: undefined });
      assert.equal(current(b3).supersedes, undefined);
      const found = await m.memory.recall.search({ query: 'Oslo Rome' });
      assert.equal(found.total, 6, 'every one in search again');
    });

    it('a superseded memory fades, and gc forgets it as usual', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const old = await m.memory.writing.save({ content: 'Eve lives in Lima.' });
      await m.memory.writing.save({ content: 'Eve lives in Quito.' });
      m.clock.advanceDays(400);
      const gc = await m.memory.forgetting.gc({ dry_run: false });
      assert.ok(gc.memory_ids.includes(old.memory_id));
      assert.equal(m.store.memories.has(old.memory_id), false);
    });

    it('a conflict hides nothing, waits in the review queue, and is settled each way', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const conflict = async (n: number) => {
        const a = await m.memory.writing.save({ content: `Bob likes jazz${n} a lot.` });
        m.clock.advanceDays(1);
        const b = await m.memory.writing.save({ content: `Bob hates jazz${n} now.` });
        assert.deepEqual(
          b.conflicts.map((c) => c.memory_id),
          [a.memory_id],
        );
        assert.deepEqual(b.supersedes, []);
        return [b.memory_id, a.memory_id] as const;
      };
      const pairs = [await conflict(1), await conflict(2), await conflict(3), await conflict(4)];
      const found = await m.memory.recall.search({ query: 'Bob' });
      assert.equal(found.total, 8, 'both sides stay in search');
      const queue = await m.memory.conflicts.open(10);
      assert.equal(queue.length, 4);
      assert.deepEqual(
        queue.map((c) => [c.first.memory_id, c.second.memory_id]),
        [...pairs].reverse(),
        'newest first, the newer memory first',
      );

      const [p1, p2, p3, p4] = pairs as [
        readonly [string, string],
        readonly [string, string],
        readonly [string, string],
        readonly [string, string],
      ];
      const first = await m.memory.conflicts.settle({
        memory_id: p1[0],
        other_id: p1[1],
        keep: 'first',
      });
      assert.deepEqual(first.superseded, [p1[1]]);
      assert.equal(m.store.memories.get(p1[1])?.status, 'superseded');
      assert.equal(m.store.memories.get(p1[1])?.superseded_by, p1[0]);

      const second = await m.memory.conflicts.settle({
        memory_id: p2[0],
        other_id: p2[1],
        keep: 'second',
      });
      assert.deepEqual(second.kept, [p2[1]]);
      assert.equal(m.store.memories.get(p2[0])?.status, 'superseded');

      const both = await m.memory.conflicts.settle({
        memory_id: p3[1],
        other_id: p3[0],
        keep: 'both',
      });
      assert.deepEqual(both.superseded, []);
      assert.equal(m.store.memories.get(p3[0])?.status, 'active');
      assert.equal(m.store.memories.get(p3[1])?.status, 'active');

      const merged = await m.memory.conflicts.settle({
        memory_id: p4[0],
        other_id: p4[1],
        keep: 'merge',
        content: 'Bob used to like jazz4; he hates it now.',
      });
      assert.ok(merged.memory_id);
      assert.equal(
        m.store.memories.get(merged.memory_id)?.content,
        'Bob used to like jazz4; he hates it now.',
      );
      assert.deepEqual(merged.archived.sort(), [...p4].sort());
      assert.equal(m.store.memories.get(p4[0])?.status, 'archived');

      assert.deepEqual(await m.memory.conflicts.open(10), [], 'every one settled');
      await assert.rejects(
        m.memory.conflicts.settle({ memory_id: p3[0], other_id: p3[1], keep: 'first' }),
        /no open conflict between/,
      );
    });

    it('namespaces are kept apart: a save judges and links only its own memories', async (t) => {
      const m = await open(engine);
      t.after(() => m.close());
      const other = m.opened.memoryFor('work');
      const mine = await m.memory.writing.save({ content: 'Frank lives in Perth.' });
      const theirs = await other.writing.save({ content: 'Frank lives in Cairo.' });
      assert.deepEqual(theirs.supersedes, []);
      assert.equal(m.store.memories.get(mine.memory_id)?.status, 'active');
      await other.writing.save({ content: 'Frank likes tea.' });
      const conflict = await m.memory.writing.save({ content: 'Frank hates tea.' });
      assert.deepEqual(conflict.conflicts, []);
      assert.deepEqual(await other.conflicts.open(10), []);
    });

    it('a restart keeps statuses, links and open conflicts', async (t) => {
      const dir = tempDir();
      const m = await open(engine, ruleJudge, dir);
      const old = await m.memory.writing.save({ content: 'Gina lives in Kyiv.' });
      const now = await m.memory.writing.save({ content: 'Gina lives in Lviv.' });
      const liked = await m.memory.writing.save({ content: 'Gina likes opera.' });
      const hated = await m.memory.writing.save({ content: 'Gina hates opera.' });
      // Again from the log (and the sidecar written at close), or from the same database.
      await m.opened.close();
      const env: Record<string, string> = m.database ? { MNEMO_DATABASE_URL: m.database.url } : {};
      const again = await openTestMemory(env, m.database ? tempDir() : dir, {
        judgeFacts: ruleJudge,
      });
      t.after(async () => {
        await again.close();
        await m.database?.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      });
      const found = await again.memory.recall.search({ query: 'Kyiv Lviv' });
      assert.deepEqual(ids(found), [now.memory_id]);
      const record = again.store.memories.get(old.memory_id);
      assert.equal(record?.status, 'superseded');
      assert.equal(record?.superseded_by, now.memory_id);
      assert.deepEqual(again.store.memories.get(now.memory_id)?.supersedes, [old.memory_id]);
      const queue = await again.memory.conflicts.open(10);
      assert.deepEqual(
        queue.map((c) => [c.first.memory_id, c.second.memory_id]),
        [[hated.memory_id, liked.memory_id]],
      );
    });
  });
}

describe('the candidate lookup on save', () => {
  it("is skipped when the judge's own reading finds no fact in the new memory", async (t) => {
    const asked: string[] = [];
    const judge: FactJudge = Object.assign(
      (statement: FactStatement, candidates: readonly FactCandidate[]) => {
        asked.push(statement.content);
        return ruleJudge(statement, candidates);
      },
      { mayJudge: (content: string) => content.includes('lives') },
    );
    const m = await open('jsonl', judge);
    t.after(() => m.close());
    const boston = await m.memory.writing.save({ content: 'Caroline lives in Boston.' });
    const chat = await m.memory.writing.save({ content: 'Caroline: wow, Boston in spring!' });
    const denver = await m.memory.writing.save({ content: 'Caroline lives in Denver.' });
    // The second found candidates (the first) but has no fact: the judge never saw it.
    assert.deepEqual(asked, ['Caroline lives in Denver.']);
    assert.deepEqual(chat.supersedes, []);
    assert.deepEqual(
      denver.supersedes.map((s) => s.memory_id),
      [boston.memory_id],
    );
  });

  it('the offline judge reads facts first: no fact, no candidates wanted', () => {
    assert.equal(judgeFacts.mayJudge?.('Caroline lives in Boston now.'), true);
    assert.equal(judgeFacts.mayJudge?.('Wow, it looks great! What made you pick it?'), false);
  });
});
