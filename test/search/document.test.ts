import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentOf, titleRepeats } from '../../src/search/document.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { noteTitle, parseNote, renderNote } from '../../src/vault/note.js';
import { propertiesOf } from '../../src/vault/writer.js';
import { T0 } from '../support.js';

const record = {
  ...newMemoryRecord('m1', 'Milo likes tuna.\nEspecially on Fridays.', T0, {
    meta: { tags: ['pets'], source: null, context: null, extra: {} },
    entities: ['Milo'],
  }),
  status: 'promoted' as const,
  promoted_at: T0,
};

/** The note mnemo writes for the record, read back as the vault index reads it. */
function written(links: { path: string; title: string }[] = []) {
  const parsed = parseNote(renderNote(propertiesOf(record), record.content, links));
  return { title: noteTitle(record.content), tags: ['pets'], body: parsed.body };
}

describe('documentOf: one text for words and meaning', () => {
  it('is the content without a note', () => {
    assert.equal(documentOf(record, undefined).text, record.content);
    assert.equal(documentOf(record, undefined).words, `${record.content}\npets\nMilo`);
  });

  it('is the content itself while the note says the same, links to other notes aside', () => {
    assert.equal(documentOf(record, written()).text, record.content);
    const linked = written([{ path: 'mnemo/milo-is-a-cat.md', title: 'Milo is a cat' }]);
    assert.match(linked.body, /## Related\n- \[\[mnemo\/milo-is-a-cat\|Milo is a cat\]\]/);
    assert.equal(documentOf(record, linked).text, record.content);
  });

  it('is the note as a person edited it', () => {
    const note = written([{ path: 'mnemo/milo-is-a-cat.md', title: 'Milo is a cat' }]);
    const edited = { ...note, body: note.body.replace('tuna', 'salmon') };
    assert.equal(documentOf(record, edited).text, 'Milo likes salmon.\nEspecially on Fridays.');
    // What a person writes after the links is theirs: the section is kept then.
    const after = { ...note, body: `${note.body}\nHe was adopted in May.\n` };
    assert.match(documentOf(record, after).text, /Milo is a cat[\s\S]*adopted in May\.$/);
    const words = documentOf(record, { ...edited, title: 'Milo and fish', tags: ['cats'] }).words;
    assert.equal(words, 'Milo and fish\ncats\nMilo likes salmon.\nEspecially on Fridays.\nMilo');
  });

  it('counts the words of a note once: a title that is the first line is not added', () => {
    const words = documentOf(record, written()).words;
    assert.equal(words, `\npets\n${record.content}\nMilo`);
    const sorted = (text: string) => text.split(/\s+/).filter(Boolean).sort();
    assert.deepEqual(sorted(words), sorted(documentOf(record, undefined).words));
    // A long first line is titled cut with an ellipsis: the same words still.
    const long = `${'word '.repeat(40)}end`;
    assert.equal(titleRepeats(noteTitle(long), long), true);
    assert.equal(titleRepeats('Milo and fish', record.content), false);
  });
});
