// The superseded status and its links on disk: the JSONL log's line (cortexgraph's fields first,
// the links after), a start from the sidecar (the status's code), and PostgreSQL's row (the links
// in the `other` column, the status a text column: no migration).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MEMORY_COLUMNS, memoryFromRow, memoryValues } from '../../src/storage/postgres/rows.js';
import { MEMORY_FIELDS, newMemoryRecord } from '../../src/storage/records.js';
import { ruleJudge } from '../memory/fact-rules.js';
import { openTestMemory, recordingLogger, testDir } from '../support.js';

describe('a superseded memory in the logs, the sidecar and a database row', () => {
  it('is written after the known fields, and a start from the sidecar keeps status and links', async (t) => {
    const dir = testDir(t);
    const first = await openTestMemory({}, dir, { sidecarMinLines: 0, judgeFacts: ruleJudge });
    const old = await first.memory.writing.save({ content: 'Jon lives in Bern.' });
    const now = await first.memory.writing.save({ content: 'Jon lives in Basel.' });
    await first.opened.close();

    const lines = fs
      .readFileSync(path.join(dir, 'memories.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const last = lines.filter((l) => l.id === old.memory_id).at(-1) as Record<string, unknown>;
    assert.equal(last.status, 'superseded');
    assert.equal(last.superseded_by, now.memory_id);
    const keys = Object.keys(last);
    assert.deepEqual(keys.slice(0, MEMORY_FIELDS.length), [...MEMORY_FIELDS]);

    const log = recordingLogger();
    const again = await openTestMemory({}, dir, { logger: log.logger, sidecarMinLines: 0 });
    t.after(() => again.opened.close());
    await again.memory.recall.search({ query: 'warm up' });
    assert.ok(log.entries().some((e) => /started from memories.idx/.test(e.msg)));
    assert.deepEqual(
      (await again.memory.recall.search({ query: 'Jon' })).results.map((r) => r.memory_id),
      [now.memory_id],
    );
    assert.equal(again.store.memories.get(old.memory_id)?.superseded_by, now.memory_id);
    const stats = await again.memory.stats.summary();
    assert.equal(stats.by_status.superseded, 1);
  });

  it("PostgreSQL's row keeps the links in `other` and reads them back", () => {
    const record = newMemoryRecord('b', 'Jon lives in Basel.', 1, { supersedes: ['a'] });
    const older = newMemoryRecord('a', 'Jon lives in Bern.', 0, {
      status: 'superseded',
      superseded_by: 'b',
    });
    for (const r of [record, older]) {
      const values = memoryValues(r, 'default');
      const row = Object.fromEntries(
        MEMORY_COLUMNS.map((c, i) => [
          c,
          c === 'other' || c === 'meta' || c === 'entities'
            ? typeof values[i] === 'string'
              ? JSON.parse(values[i] as string)
              : values[i]
            : values[i],
        ]),
      );
      assert.deepEqual(memoryFromRow(row), r);
    }
  });
});
