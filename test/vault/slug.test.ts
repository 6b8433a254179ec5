import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { candidateName, firstLine, slugify } from '../../src/vault/slug.js';
import { tempDir } from '../support.js';

const SAFE = /^[\p{L}\p{M}\p{N}]+(-[\p{L}\p{M}\p{N}]+)*$/u;

describe('slugify', () => {
  it('makes a readable slug of the first line with text', () => {
    assert.equal(
      slugify('\n\n# Kitten sleeping on the rug!\nsecond line'),
      'kitten-sleeping-on-the-rug',
    );
    assert.equal(slugify('- Zoë’s café: “crème brûlée”'), 'zoë-s-café-crème-brûlée');
    assert.equal(slugify('東京の猫'), '東京の猫');
    assert.equal(firstLine('> quoted\nnext'), 'quoted');
  });

  it('keeps ../, absolute paths and separators from naming another folder', () => {
    assert.equal(slugify('../../x'), 'x');
    assert.equal(slugify('/etc/passwd'), 'etc-passwd');
    assert.equal(slugify('C:\\Windows\\system32'), 'c-windows-system32');
    assert.equal(slugify('..'), 'memory');
    assert.equal(slugify('a\u0000b\u0007c'), 'a-b-c');
  });

  it('steers clear of names Windows reserves, whatever the case', () => {
    for (const name of ['CON', 'con', 'Prn', 'AUX', 'nul', 'COM1', 'lpt9', 'com¹']) {
      const slug = slugify(name);
      assert.notEqual(slug.toLowerCase(), name.toLowerCase());
      assert.match(slug, /-note$/);
    }
    assert.equal(slugify('console'), 'console');
  });

  it('cuts long lines at a word boundary, 60 characters at most', () => {
    const slug = slugify('word '.repeat(40));
    assert.ok([...slug].length <= 60);
    assert.ok(!slug.endsWith('-'));
    assert.equal([...slugify('x'.repeat(200))].length, 60);
  });

  it('always gives a safe name that stays in its folder (property)', () => {
    const dir = tempDir();
    try {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
          const slug = slugify(text);
          assert.match(slug, SAFE);
          assert.ok(Buffer.byteLength(candidateName(slug, 9999)) < 255);
          const target = path.resolve(dir, candidateName(slug, 2));
          assert.equal(path.dirname(target), dir);
        }),
        { numRuns: 500 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
