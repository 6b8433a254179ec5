import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { clip, json, progressBar, table, utcMinute } from '../../src/cli/format.js';

/** A stream that keeps what is written, and says it is (or is not) a terminal. */
function sink(isTTY: boolean) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (isTTY) stream.isTTY = true;
  const chunks: string[] = [];
  stream.on('data', (d: Buffer) => chunks.push(d.toString()));
  return { stream, text: () => chunks.join('') };
}

describe('table', () => {
  it('pads each column to its widest cell, two spaces apart, no trailing spaces', () => {
    assert.equal(
      table(
        ['ID', 'SCORE', 'PREVIEW'],
        [
          ['a1', '0.5', 'short'],
          ['b22', '0.25', ''],
        ],
      ),
      ['ID   SCORE  PREVIEW', 'a1   0.5    short', 'b22  0.25'].join('\n'),
    );
  });

  it('counts characters, not UTF-16 units: an emoji or a composed accented letter is one column', () => {
    const lines = table(
      ['NAME', 'X'],
      [
        ['🐈🐈', 'a'],
        ['café', 'b'],
        ['ab', 'c'],
      ],
    ).split('\n');
    assert.deepEqual(lines, ['NAME  X', '🐈🐈    a', 'café  b', 'ab    c']);
    // Every cell of the second column starts after the same number of characters.
    for (const line of lines) assert.equal([...line].indexOf(line.at(-1) as string), 6);
  });

  it('measures East Asian wide characters as one column each, as it always has', () => {
    // A terminal shows 猫 two columns wide, so such a row looks one column short per
    // character; pinned here so that a change of the padding rule is a visible decision.
    assert.equal(table(['K', 'V'], [['猫猫', 'x']]), 'K   V\n猫猫  x');
  });

  it('a header alone, and rows shorter than the header', () => {
    assert.equal(table(['ID', 'SCORE'], []), 'ID  SCORE');
    assert.equal(table(['ID', 'SCORE'], [['abc']]), 'ID   SCORE\nabc');
  });
});

describe('clip, utcMinute, json', () => {
  it('clip keeps text up to max characters, else cuts it with an ellipsis at max', () => {
    assert.equal(clip('exactly ten', 11), 'exactly ten');
    assert.equal(clip('a little too long', 10), 'a little …');
    assert.equal([...clip('x'.repeat(60), 48)].length, 48);
  });

  it('utcMinute shows an instant in UTC to the minute', () => {
    assert.equal(utcMinute(1_772_409_600), '2026-03-02 00:00');
    assert.equal(utcMinute(1_772_409_659.9), '2026-03-02 00:00');
  });

  it('json indents by two spaces', () => {
    assert.equal(json({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
  });
});

describe('progressBar', () => {
  it('on a terminal redraws one line in place, and ends it when done', () => {
    const { stream, text } = sink(true);
    const bar = progressBar(stream, 'embedding');
    bar.update(0, 4);
    bar.update(2, 4);
    bar.update(4, 4);
    bar.done();
    const frames = text().split('\r').slice(1);
    assert.deepEqual(frames, [
      `embedding [${'.'.repeat(30)}] 0/4`,
      `embedding [${'#'.repeat(15)}${'.'.repeat(15)}] 2/4`,
      `embedding [${'#'.repeat(30)}] 4/4\n`,
    ]);
  });

  it('elsewhere writes a line each time another tenth is reached', () => {
    const { stream, text } = sink(false);
    const bar = progressBar(stream, 'embedding');
    for (let done = 0; done <= 20; done++) bar.update(done, 20);
    bar.done();
    const lines = text().split('\n').filter(Boolean);
    assert.equal(lines.length, 11);
    assert.equal(lines[0], 'embedding 0/20 (0%)');
    assert.equal(lines[1], 'embedding 2/20 (10%)');
    assert.equal(lines.at(-1), 'embedding 20/20 (100%)');
    assert.ok(!text().includes('\r'), 'no carriage returns in a log');
  });

  it('writes nothing for an empty run, on a terminal or not', () => {
    for (const isTTY of [true, false]) {
      const { stream, text } = sink(isTTY);
      const bar = progressBar(stream, 'embedding');
      bar.update(0, 0);
      bar.done();
      assert.equal(text(), '');
    }
  });
});
