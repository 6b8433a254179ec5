// A fact judge for tests: deterministic, by two sentence shapes, so a test says what it expects.
// "<Name> lives in <Place>": a later place supersedes an earlier one of the same name.
// "<Name> likes <Thing>" against "<Name> hates <Thing>": a conflict.
import type { FactJudge, FactVerdict } from '../../src/memory/facts/judge.js';

const LIVES = /^(\w+) lives in (\w+)/;
const FEELS = /^(\w+) (likes|hates) (\w+)/;

export const ruleJudge: FactJudge = (statement, candidates) => {
  const verdicts: FactVerdict[] = [];
  const lives = LIVES.exec(statement.content);
  const feels = FEELS.exec(statement.content);
  for (const candidate of candidates) {
    const theirLives = LIVES.exec(candidate.content);
    if (lives && theirLives && lives[1] === theirLives[1] && lives[2] !== theirLives[2]) {
      verdicts.push({ id: candidate.id, kind: 'supersedes' });
      continue;
    }
    const theirFeels = FEELS.exec(candidate.content);
    if (
      feels &&
      theirFeels &&
      feels[1] === theirFeels[1] &&
      feels[3] === theirFeels[3] &&
      feels[2] !== theirFeels[2]
    ) {
      verdicts.push({ id: candidate.id, kind: 'conflicts' });
    }
  }
  return verdicts;
};
