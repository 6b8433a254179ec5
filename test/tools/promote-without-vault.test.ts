// A replica on PostgreSQL has no vault unless MNEMO_VAULT_DIR is set: promote_memory there says
// where to promote instead, writes nothing, and a dry run still lists the candidates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineAbsent, errorText, openTestClient } from '../support.js';

describe('promote_memory on a replica without a vault', {
  skip: await engineAbsent('postgres'),
}, () => {
  it('answers how to promote, changes nothing, and dry_run still lists the candidates', async (t) => {
    const m = await openTestClient({}, { engine: 'postgres' });
    t.after(() => m.close());
    assert.equal(m.vault, '');
    const { memory_id } = await m.ok<{ memory_id: string }>('save_memory', {
      content: 'the release checklist lives in the ops wiki',
    });
    for (let i = 0; i < 6; i++) await m.ok('touch_memory', { memory_id });
    const refused = await m.call('promote_memory', { memory_id, force: true });
    assert.equal(refused.isError, true);
    assert.match(errorText(refused), /no Obsidian vault.*MNEMO_VAULT_DIR.*dry_run: true/);
    assert.equal(m.store.memories.get(memory_id)?.status, 'active');
    const dry = await m.ok<{ candidates: { memory_id: string }[] }>('promote_memory', {
      auto_detect: true,
      dry_run: true,
    });
    assert.deepEqual(
      dry.candidates.map((c) => c.memory_id),
      [memory_id],
    );
  });
});
