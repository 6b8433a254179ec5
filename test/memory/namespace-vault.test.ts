import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eventually, openTestMemory } from '../support.js';

describe("a namespace's notes in the watched vault", () => {
  it('live in mnemo/<namespace>/, and their edits and deletions reach that namespace only', async (t) => {
    const m = await openTestMemory({}, undefined, { watchVault: true, noteSettleMs: 50 });
    t.after(() => m.close());
    await m.opened.readiness.wait('vault');
    const a = m.opened.memoryFor('a');
    const { memory_id: id } = await a.writing.save({ content: 'The kiln fires at 1200 degrees' });
    await a.promotion.promote({ memory_id: id, force: true });
    const record = () => a.recall.open({ memory_ids: [id] });
    const promoted = (await record()).memories[0];
    assert.equal(promoted?.status, 'promoted');
    assert.match(String(promoted?.promoted_to), /^mnemo\/a\/[^/]+\.md$/);
    const file = path.join(m.vault, String(promoted?.promoted_to));

    // Edited by a person: a searches it as edited; the default namespace sees none of it.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('1200 degrees', '1300 degrees'));
    await eventually(
      async () =>
        (await a.recall.search({ query: '1300' })).results.some((r) => r.memory_id === id),
      'the edit to be searched in a',
    );
    assert.deepEqual((await m.memory.recall.search({ query: '1300' })).results, []);
    assert.deepEqual((await m.memory.recall.searchUnified({ query: 'kiln' })).results, []);
    const unified = await a.recall.searchUnified({ query: 'kiln' });
    assert.deepEqual(
      unified.results.map((r) => r.memory_id),
      [id],
    );

    // Deleted by a person: the memory of a is active again.
    fs.rmSync(file);
    await eventually(
      async () => (await record()).memories[0]?.status === 'active',
      'the memory to be active again',
    );
  });
});
