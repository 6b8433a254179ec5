import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type NoteProperties,
  noteMemoryId,
  noteTags,
  obsidianDateTime,
  parseNote,
  renderNote,
  updateOwnedProperties,
  wikilink,
} from '../../src/vault/note.js';

const NASTY = [
  'key: value',
  "it's \"quoted\" and 'single'",
  '---',
  '# not a comment',
  'line one\nline two\n---\nthree',
  'Zoë 東京 🐈 ü',
  '- a list?',
  '{ "json": true }',
  '[[link]] | pipe',
  'null',
  'true',
  '2026-01-01',
  '  leading and trailing  ',
  '@at `tick` %percent &anchor *alias !tag',
];

function props(text: string): NoteProperties {
  return {
    title: text,
    memory_id: 'm-1',
    tags: ['project/mnemo', '2024'],
    created: obsidianDateTime(1_767_225_600),
    promoted: obsidianDateTime(1_767_312_000),
    last_used: obsidianDateTime(1_767_312_000),
    use_count: 5,
    strength: 1.3,
    source: text,
    entities: [text, 'Milo'],
  };
}

describe('renderNote and parseNote', () => {
  it('gives frontmatter that parses back to the same values, whatever the text', () => {
    for (const text of NASTY) {
      const note = renderNote(props(text), `Body: ${text}`, []);
      const parsed = parseNote(note);
      assert.ok(parsed.valid, text);
      assert.deepEqual(parsed.properties, { ...props(text) }, text);
      assert.equal(parsed.body.trimEnd(), `Body: ${text}`.trimEnd());
    }
  });

  it('round-trips any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string(), (title, body) => {
        const parsed = parseNote(renderNote(props(title), body, []));
        assert.ok(parsed.valid);
        assert.deepEqual(parsed.properties, { ...props(title) });
        assert.equal(parsed.body.trimEnd(), body.trimEnd());
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a body that starts with --- as body', () => {
    const parsed = parseNote(renderNote(props('t'), '---\nnot: frontmatter\n---\ntext', []));
    assert.equal(parsed.properties.memory_id, 'm-1');
    assert.match(parsed.body, /^---\nnot: frontmatter\n---\ntext/);
  });

  it('writes tags as a list without #, and dates as Obsidian date-times', () => {
    const note = renderNote(props('t'), 'b', []);
    assert.match(note, /\ntags:\n {2}- project\/mnemo\n {2}- '2024'\n/);
    assert.doesNotMatch(note, /#/);
    assert.match(note, /\ncreated: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'\n/);
    const created = parseNote(note).properties.created as string;
    assert.equal(new Date(created).getTime() / 1000, 1_767_225_600);
  });

  it('lists related notes as wikilinks in a Related section', () => {
    const note = renderNote(props('t'), 'body', [
      { path: 'mnemo/other-note.md', title: 'Other [note] | with #chars' },
      { path: 'mnemo/plain.md', title: 'mnemo/plain' },
    ]);
    assert.match(
      note,
      /\n## Related\n- \[\[mnemo\/other-note\|Other note with chars\]\]\n- \[\[mnemo\/plain\]\]\n$/,
    );
    assert.equal(wikilink({ path: 'a/b.md', title: '' }), '[[a/b]]');
  });

  it('reads tags written by hand in any of the usual shapes', () => {
    assert.deepEqual(noteTags({ tags: ['#a', 'b', 3] }), ['a', 'b', '3']);
    assert.deepEqual(noteTags({ tags: '#a, b c' }), ['a', 'b', 'c']);
    assert.deepEqual(noteTags({ tag: 'x' }), ['x']);
    assert.deepEqual(noteTags({}), []);
  });

  it('reads the memory a note belongs to from memory_id, else from stm_id (cortexgraph)', () => {
    assert.equal(noteMemoryId({ memory_id: 'm1' }), 'm1');
    assert.equal(noteMemoryId({ stm_id: 'c1' }), 'c1');
    assert.equal(noteMemoryId({ memory_id: 'm1', stm_id: 'c1' }), 'm1');
    assert.equal(noteMemoryId({ memory_id: '', stm_id: 7 }), undefined);
  });

  it('treats unreadable frontmatter as body, without throwing', () => {
    const parsed = parseNote('---\na: [unclosed\n---\ntext');
    assert.equal(parsed.valid, false);
    assert.deepEqual(parsed.properties, {});
  });
});

describe('updateOwnedProperties', () => {
  const edited = [
    '---',
    'title: My own title',
    '# a comment the person wrote',
    'memory_id: m-1',
    'tags: [mine, "#theirs"]',
    'use_count: 2',
    'last_used: 2026-01-01T00:00:00',
    'rating: 5',
    'aliases:',
    '  - kitty',
    '---',
    'The body, as the person rewrote it.',
    '',
  ].join('\n');

  it('changes only its own keys and keeps body, other keys, comments and order', () => {
    const updated = updateOwnedProperties(edited, {
      use_count: 7,
      last_used: '2026-02-01T10:00:00',
      strength: 1.5,
    });
    assert.ok(updated);
    assert.equal(
      updated,
      edited
        .replace('use_count: 2', 'use_count: 7')
        .replace('last_used: 2026-01-01T00:00:00', "last_used: '2026-02-01T10:00:00'")
        .replace('  - kitty\n---', '  - kitty\nstrength: 1.5\n---'),
    );
  });

  it('replaces a key whose value spans several lines', () => {
    const text = '---\nuse_count:\n  - 1\n  - 2\nkeep: yes\n---\nbody\n';
    assert.equal(
      updateOwnedProperties(text, { use_count: 3 }),
      '---\nuse_count: 3\nkeep: yes\n---\nbody\n',
    );
  });

  it('keeps Windows line endings', () => {
    const text = '---\r\nuse_count: 1\r\n---\r\nbody\r\n';
    assert.equal(
      updateOwnedProperties(text, { use_count: 2 }),
      '---\r\nuse_count: 2\r\n---\r\nbody\r\n',
    );
  });

  it('gives up, rather than guess, on a note without valid frontmatter', () => {
    assert.equal(updateOwnedProperties('no frontmatter', { use_count: 1 }), undefined);
    assert.equal(updateOwnedProperties('---\na: [bad\n---\nx', { use_count: 1 }), undefined);
  });
});
