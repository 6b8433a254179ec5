import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FactCandidate, judgeFacts } from '../../src/memory/facts/judge.js';

const NOW = 1_700_000_000;
const DAY = 86_400;

/** The verdict on `older`, saved `daysAgo` days before `newer`: 'supersedes', 'conflicts' or 'none'. */
function verdict(older: string, newer: string, daysAgo = 30, similarity?: number): string {
  const candidate: FactCandidate = { id: 'old', content: older, createdAt: NOW - daysAgo * DAY };
  if (similarity !== undefined) candidate.similarity = similarity;
  const verdicts = judgeFacts({ content: newer, createdAt: NOW }, [candidate]);
  return verdicts.find((v) => v.id === 'old')?.kind ?? 'none';
}

describe('the fact judge', () => {
  it('where someone lives: a move supersedes, a wish, a question or a history does not', () => {
    assert.equal(verdict('Caroline lives in Boston.', 'Caroline moved to Denver.'), 'supersedes');
    assert.equal(
      verdict('I live in Leeds.', 'I moved from Leeds to York last month.'),
      'supersedes',
    );
    assert.equal(verdict('Caroline lives in Boston.', 'Caroline still lives in Boston.'), 'none');
    assert.equal(verdict('Caroline lives in Boston.', 'Caroline might move to Denver.'), 'none');
    assert.equal(verdict('Caroline lives in Boston.', 'Does Caroline live in Denver?'), 'none');
    assert.equal(verdict('Caroline lives in Boston.', 'Caroline used to live in Denver.'), 'none');
    assert.equal(verdict('Caroline lives in Boston.', 'Melanie moved to Denver.'), 'none');
    assert.equal(verdict('Caroline lives in Boston.', 'Caroline lives in Denver.'), 'conflicts');
  });

  it('a place whose name holds a word of change is not a change ("New York")', () => {
    assert.equal(verdict('Priya lives in Lisbon.', 'Priya lives in New York.'), 'conflicts');
  });

  it('where someone works and as what', () => {
    assert.equal(verdict('I work at Initech.', 'I joined Globex in May.'), 'supersedes');
    assert.equal(verdict('I work at Initech.', 'I quit my job.'), 'supersedes');
    assert.equal(verdict('Tom works at Acme.', 'Tom left Acme.'), 'supersedes');
    assert.equal(verdict('Tom works at Acme.', 'Tom works at Globex.'), 'conflicts');
    assert.equal(verdict('Tom works at Acme.', 'Tom used to work at Globex.'), 'none');
    assert.equal(verdict('I am a nurse.', 'I became a teacher.'), 'supersedes');
    assert.equal(verdict('I am a nurse.', 'I am a big fan of jazz.'), 'none');
  });

  it('joining a group is not a new employer: one joins many (LoCoMo hid such turns)', () => {
    assert.equal(verdict('I work at Initech.', 'I joined a book club last week.'), 'none');
    assert.equal(
      verdict(
        'John: I joined a service-focused online group last week.',
        'Maria: Just yesterday I joined a nearby church.',
      ),
      'none',
    );
    assert.equal(verdict('Tom works at Acme.', 'Tom joined Globex.'), 'supersedes');
  });

  it('likes: ending one supersedes, liking another is unrelated, hating it conflicts', () => {
    assert.equal(verdict('I love coffee.', "I don't like coffee anymore."), 'supersedes');
    assert.equal(verdict('I love coffee.', 'I switched from coffee to tea.'), 'supersedes');
    assert.equal(verdict('I love coffee.', 'I love tea too.'), 'none');
    assert.equal(verdict('I love coffee.', 'I hate coffee.'), 'conflicts');
  });

  it('preferences and favourites of one slot', () => {
    assert.equal(
      verdict('User prefers the window seat.', 'User prefers the aisle seat now.'),
      'supersedes',
    );
    assert.equal(verdict('User prefers concise answers.', 'User prefers dark mode now.'), 'none');
    assert.equal(
      verdict('My favourite colour is blue.', 'My favorite color is now green.'),
      'supersedes',
    );
    assert.equal(verdict('My favourite colour is blue.', 'Blue is my favourite colour.'), 'none');
  });

  it('relationships move forward; another partner without a cue conflicts', () => {
    assert.equal(verdict('Ben is dating Anna.', 'Ben and Anna got engaged.'), 'supersedes');
    assert.equal(verdict('Ben is married to Anna.', 'Ben got divorced.'), 'supersedes');
    assert.equal(verdict('Ben is dating Anna.', 'Ben broke up with Anna.'), 'supersedes');
    assert.equal(verdict('Ben is married to Anna.', 'Ben and Anna are married.'), 'none');
    assert.equal(verdict('Ben is married to Anna.', 'Ben is married to Julia.'), 'conflicts');
    assert.equal(verdict('Ben is married to Anna.', 'Omar is married to Julia.'), 'none');
  });

  it('counts and ages', () => {
    assert.equal(verdict('I have two kids.', 'I have three kids now.'), 'supersedes');
    assert.equal(verdict('I have two kids.', 'I have 2 children.'), 'none');
    assert.equal(verdict('I have two kids.', 'I have three kids.'), 'conflicts');
    assert.equal(verdict('I have a dog.', 'I have a cat.'), 'none');
    assert.equal(verdict('Caroline is 34.', 'Caroline turned 35.'), 'supersedes');
    assert.equal(verdict('Caroline is 34.', 'Caroline is 35 years old.', 400), 'supersedes');
    assert.equal(verdict('Caroline is 34.', 'Caroline is 40 years old.', 30), 'conflicts');
    assert.equal(verdict('Caroline is 34.', 'Caroline will turn 35 next month.'), 'none');
  });

  it('phone numbers, emails, names and dates', () => {
    assert.equal(
      verdict('My phone number is 555-1234.', 'My new phone number is 555-9876.'),
      'supersedes',
    );
    assert.equal(
      verdict('My phone number is 555-1234.', 'My phone number is 555-9876.'),
      'conflicts',
    );
    assert.equal(
      verdict("Tim's email is t@example.com.", "Tim's email is now tim@example.org."),
      'supersedes',
    );
    assert.equal(verdict('My dog is called Rex.', 'My dog is called Max.'), 'conflicts');
    assert.equal(verdict('My dog is called Rex.', 'My cat is called Max.'), 'none');
    assert.equal(verdict('My birthday is May 3.', 'My birthday is on the 3rd of May.'), 'none');
    assert.equal(verdict('My birthday is May 3.', 'My birthday is June 9.'), 'conflicts');
    assert.equal(
      verdict('Our meeting is on Friday.', 'Our meeting was moved to Monday.'),
      'supersedes',
    );
  });

  it('diet and car', () => {
    assert.equal(verdict('I am vegetarian.', 'I went vegan.'), 'supersedes');
    assert.equal(verdict('I am vegetarian.', 'I am no longer vegetarian.'), 'supersedes');
    assert.equal(verdict('Jess drives a Prius.', 'Jess drives a Tesla now.'), 'supersedes');
  });

  it('never supersedes a newer memory, nor one holding a fact the new one leaves alone', () => {
    assert.equal(
      verdict('Caroline lives in Boston.', 'Caroline moved to Denver.', -5),
      'conflicts',
    );
    assert.equal(
      verdict('Caroline lives in Boston and works at MIT.', 'Caroline moved to Denver.'),
      'conflicts',
    );
  });

  it('drops a conflict the static model calls unrelated, keeps a stated update', () => {
    assert.equal(verdict('Tom works at Acme.', 'Tom works at Globex.', 30, 0.05), 'none');
    assert.equal(verdict('Tom works at Acme.', 'Tom works at Globex.', 30, 0.6), 'conflicts');
    assert.equal(verdict('Tom works at Acme.', 'Tom joined Globex.', 30, 0.05), 'supersedes');
  });

  it('answers each candidate once, by its id, and nothing for a memory that states no fact', () => {
    const candidates: FactCandidate[] = [
      { id: 'a', content: 'Caroline lives in Boston.', createdAt: NOW - DAY },
      { id: 'a', content: 'Caroline lives in Boston.', createdAt: NOW - DAY },
      { id: 'b', content: 'Melanie lives in Boston.', createdAt: NOW - DAY },
    ];
    assert.deepEqual(
      judgeFacts({ content: 'Caroline moved to Denver.', createdAt: NOW }, candidates),
      [{ id: 'a', kind: 'supersedes' }],
    );
    assert.deepEqual(judgeFacts({ content: 'Remember the milk.', createdAt: NOW }, candidates), []);
  });
});
