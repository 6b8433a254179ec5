import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CpuProfile, profileTop, shortFile } from '../../bench/lib/profile.js';

test('shortFile names a package, or a path from the last src/, dist/ or bench/', () => {
  assert.equal(
    shortFile('file:///w/node_modules/@modelcontextprotocol/server/dist/a.mjs'),
    '@modelcontextprotocol/server',
  );
  assert.equal(shortFile('file:///w/node_modules/zod/v4/core.js'), 'zod');
  assert.equal(shortFile('file:///work/wt/bench/dist/search/bm25.js'), 'dist/search/bm25.js');
  assert.equal(shortFile(''), '(native or idle)');
});

test('profileTop charges each sample its time delta, by function and by file', () => {
  const frame = (functionName: string, url: string, lineNumber: number) => ({
    functionName,
    url,
    lineNumber,
  });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', '', -1) },
      { id: 2, callFrame: frame('termIds', 'file:///r/dist/search/tokenizer.js', 41) },
      { id: 3, callFrame: frame('words', 'file:///r/dist/search/tokenizer.js', 104) },
      { id: 4, callFrame: frame('add', 'file:///r/dist/search/bm25.js', 82) },
    ],
    samples: [2, 2, 3, 4, 1],
    timeDeltas: [1000, 2000, 500, 4000, 100],
  };
  const top = profileTop(profile, 2);
  assert.equal(top.totalMs, 7.6);
  assert.deepEqual(top.functions, [
    { name: 'add (dist/search/bm25.js:83)', ms: 4 },
    { name: 'termIds (dist/search/tokenizer.js:42)', ms: 3 },
  ]);
  assert.deepEqual(top.files, [
    { name: 'dist/search/bm25.js', ms: 4 },
    { name: 'dist/search/tokenizer.js', ms: 3.5 },
  ]);
});
