import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadLocomo, locomoQueries, locomoTexts } from '../../bench/lib/locomo-text.js';

test('locomoTexts is deterministic, sized, and made of LoCoMo turns', () => {
  const a = locomoTexts(500, 3);
  assert.equal(a.length, 500);
  assert.deepEqual(locomoTexts(500, 3), a);
  assert.notDeepEqual(locomoTexts(500, 4), a);
  const { turns } = loadLocomo();
  assert.ok(turns.length > 2000);
  for (const text of a.slice(0, 50)) {
    assert.ok(
      turns.some((turn) => text.startsWith(turn)),
      text,
    );
  }
  assert.ok(new Set(a).size > 450, 'texts repeat far too often');
});

test('locomoQueries mixes questions and content words, deterministically', () => {
  const q = locomoQueries(400, 5);
  assert.deepEqual(locomoQueries(400, 5), q);
  const { questions } = loadLocomo();
  const asked = q.filter((query) => questions.includes(query)).length;
  assert.ok(asked > 120 && asked < 280, `questions: ${asked} of 400`);
  for (const query of q) {
    if (questions.includes(query)) continue;
    const n = query.split(' ').length;
    assert.ok(n >= 1 && n <= 3, query);
  }
});
