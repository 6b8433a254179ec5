import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ruleJudge } from '../memory/fact-rules.js';
import { openTestClient } from '../support.js';

const textOf = (result: { content: unknown }) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

interface Saved {
  memory_id: string;
  supersedes: { memory_id: string; content: string }[];
  conflicts: { memory_id: string; content: string }[];
}

describe('supersession and conflicts through the tools, resources and prompts', () => {
  it('save_memory names what it superseded; search, open and restore follow it', async (t) => {
    const c = await openTestClient({}, { judgeFacts: ruleJudge });
    t.after(() => c.close());
    const old = await c.ok<Saved>('save_memory', { content: 'Hana lives in Osaka.' });
    const result = await c.call('save_memory', { content: 'Hana lives in Nagoya.' });
    const saved = result.structuredContent as unknown as Saved;
    assert.deepEqual(saved.supersedes, [
      { memory_id: old.memory_id, content: 'Hana lives in Osaka.' },
    ]);
    assert.match(textOf(result), new RegExp(`supersedes ${old.memory_id}.*out of search`));

    const plain = await c.ok<{ results: { memory_id: string }[] }>('search_memory', {
      query: 'Hana',
    });
    assert.deepEqual(
      plain.results.map((r) => r.memory_id),
      [saved.memory_id],
    );
    const all = await c.ok<{ results: { memory_id: string; superseded_by?: string }[] }>(
      'search_memory',
      { query: 'Hana', include_superseded: true },
    );
    assert.equal(all.results.length, 2);
    assert.equal(
      all.results.find((r) => r.memory_id === old.memory_id)?.superseded_by,
      saved.memory_id,
    );

    const opened = await c.ok<{
      memories: { superseded_by: { memory_id: string } | null; supersedes: unknown[] }[];
    }>('open_memories', { memory_ids: [old.memory_id] });
    assert.equal(opened.memories[0]?.superseded_by?.memory_id, saved.memory_id);

    const restored = await c.call('restore_memory', { memory_id: old.memory_id });
    assert.equal(restored.isError, undefined);
    assert.match(textOf(restored), /Supersession undone/);
    const back = await c.ok<{ total: number }>('search_memory', { query: 'Hana' });
    assert.equal(back.total, 2);
  });

  it('delete_memory and gc of the newer memory say the older one is current again', async (t) => {
    const c = await openTestClient({}, { judgeFacts: ruleJudge });
    t.after(() => c.close());
    const old = await c.ok<Saved>('save_memory', { content: 'Lena lives in Graz.' });
    const newer = await c.ok<Saved>('save_memory', { content: 'Lena lives in Linz.' });
    const deleted = await c.call('delete_memory', { memory_id: newer.memory_id });
    assert.deepEqual(
      (deleted.structuredContent as { superseded_undone?: unknown })?.superseded_undone,
      [{ memory_id: old.memory_id, content: 'Lena lives in Graz.' }],
    );
    assert.match(
      textOf(deleted),
      new RegExp(`Supersession undone: ${old.memory_id} current again`),
    );

    const again = await c.ok<Saved>('save_memory', { content: 'Lena lives in Wels.' });
    assert.deepEqual(
      again.supersedes.map((s) => s.memory_id),
      [old.memory_id],
    );
    c.clock.advanceDays(400);
    await c.ok('touch_memory', { memory_id: old.memory_id, boost_strength: true });
    const dry = await c.call('gc', { dry_run: true });
    assert.match(textOf(dry), new RegExp(`Would make current again .*${old.memory_id}`));
    const archived = await c.call('archive_memory', { memory_id: again.memory_id });
    assert.match(textOf(archived), /Supersession undone/);
  });

  it('a conflict is in mnemo://review and the review prompt until settle_conflict', async (t) => {
    const c = await openTestClient({}, { judgeFacts: ruleJudge });
    t.after(() => c.close());
    const liked = await c.ok<Saved>('save_memory', { content: 'Ivan likes chess.' });
    const hated = await c.call('save_memory', { content: 'Ivan hates chess.' });
    const saved = hated.structuredContent as unknown as Saved;
    assert.deepEqual(
      saved.conflicts.map((m) => m.memory_id),
      [liked.memory_id],
    );
    assert.match(textOf(hated), /may contradict.*settle_conflict/);

    const review = async () => {
      const read = await c.client.readResource({ uri: 'mnemo://review' });
      const first = read.contents[0] as { text: string };
      return JSON.parse(first.text) as {
        conflicts: { first: { memory_id: string }; second: { memory_id: string } }[];
      };
    };
    const queued = await review();
    assert.deepEqual(
      queued.conflicts.map((x) => [x.first.memory_id, x.second.memory_id]),
      [[saved.memory_id, liked.memory_id]],
    );
    const prompt = await c.client.getPrompt({ name: 'review', arguments: {} });
    const promptText = prompt.messages.map((m) => (m.content as { text: string }).text).join('');
    assert.match(promptText, /seem to contradict/);
    assert.ok(promptText.includes(liked.memory_id) && promptText.includes(saved.memory_id));

    const bad = await c.call('settle_conflict', {
      memory_id: saved.memory_id,
      other_id: liked.memory_id,
      keep: 'neither',
    });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /keep must be first/);

    const settled = await c.call('settle_conflict', {
      memory_id: saved.memory_id,
      other_id: liked.memory_id,
      keep: 'first',
    });
    assert.equal(settled.isError, undefined);
    assert.match(textOf(settled), /superseded by it/);
    assert.deepEqual((await review()).conflicts, []);
    const after = await c.client.getPrompt({ name: 'review', arguments: {} });
    const afterText = after.messages.map((m) => (m.content as { text: string }).text).join('');
    assert.doesNotMatch(afterText, /seem to contradict/);

    const help = await c.client.readResource({ uri: 'mnemo://help/settle_conflict' });
    assert.match((help.contents[0] as { text: string }).text, /keep: first/);
  });
});
