// Real conversation text at any size: LoCoMo turns (bench/data/locomo-dev.json, 2,760 turns of
// five conversations; licence in bench/data/README.md) recombined by a seeded PRNG, so a bench
// at 1,000,000 memories indexes the words, lengths and repetition of what people say, not a
// synthetic Zipf vocabulary. The same (n, seed) gives the same texts on every machine and run.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStopWord, words } from '../../src/search/tokenizer.js';
import { seededRandom } from './content.js';

/** The LoCoMo file shipped with the bench. */
export const LOCOMO_DATASET = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../data/locomo-dev.json',
);

interface Turn {
  speaker: string;
  text: string;
  blip_caption?: string;
}

interface Sample {
  conversation: Record<string, unknown>;
  qa: { question: string; category: number }[];
}

/** What the texts and queries are drawn from. */
export interface LocomoCorpus {
  /** Each turn as one string: "<speaker>: <text>", plus the image caption where there is one. */
  turns: string[];
  /** The questions, less the adversarial ones (category 5), as bench/recall.ts asks them. */
  questions: string[];
  /** Distinct lowercased words of the turns that are not stop words, in order of first use. */
  contentWords: string[];
}

const corpora = new Map<string, LocomoCorpus>();

/** Reads (once per file) the turns, questions and content words of a LoCoMo JSON file. */
export function loadLocomo(file = LOCOMO_DATASET): LocomoCorpus {
  const cached = corpora.get(file);
  if (cached) return cached;
  const samples = JSON.parse(fs.readFileSync(file, 'utf8')) as Sample[];
  const turns: string[] = [];
  const questions: string[] = [];
  const seen = new Set<string>();
  const contentWords: string[] = [];
  for (const sample of samples) {
    // Sessions are numbered keys (session_1, session_2, ...): their numeric order, not the
    // object's key order, keeps the turns in the order they were said.
    const sessions = Object.keys(sample.conversation)
      .filter((key) => /^session_\d+$/.test(key))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    for (const key of sessions) {
      for (const turn of sample.conversation[key] as Turn[]) {
        const caption = turn.blip_caption ? ` [image: ${turn.blip_caption}]` : '';
        const text = `${turn.speaker}: ${turn.text}${caption}`;
        turns.push(text);
        for (const word of words(turn.text)) {
          if (word.length < 3 || /\d/.test(word) || isStopWord(word) || seen.has(word)) continue;
          seen.add(word);
          contentWords.push(word);
        }
      }
    }
    for (const qa of sample.qa) if (qa.category !== 5) questions.push(qa.question);
  }
  const corpus = { turns, questions, contentWords };
  corpora.set(file, corpus);
  return corpus;
}

/**
 * `n` memory texts, each one to three LoCoMo turns picked at random (2,760 turns give billions of
 * ordered pairs and triples, so texts at 1M are nearly all distinct while their words recur as
 * in real notes). About 23 words a turn, so about 46 words a text on average.
 */
export function locomoTexts(n: number, seed = 1, file = LOCOMO_DATASET): string[] {
  const { turns } = loadLocomo(file);
  const random = seededRandom(seed);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const count = 1 + Math.floor(random() * 3);
    let text = turns[Math.floor(random() * turns.length)] as string;
    for (let t = 1; t < count; t++) text += ` ${turns[Math.floor(random() * turns.length)]}`;
    out[i] = text;
  }
  return out;
}

/**
 * `n` search queries: half LoCoMo questions as a user asks them ("When did Caroline go to the
 * LGBTQ support group?"), half one to three content words of a turn (in the turn's order), as
 * an agent asks a memory store ("support group"). Seeded apart from the texts.
 */
export function locomoQueries(n: number, seed = 2, file = LOCOMO_DATASET): string[] {
  const { turns, questions } = loadLocomo(file);
  const random = seededRandom(seed);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    if (random() < 0.5) {
      out[i] = questions[Math.floor(random() * questions.length)] as string;
      continue;
    }
    out[i] = contentWordsOf(turns, random);
  }
  return out;
}

/** One to three consecutive content words of a random turn that has some. */
function contentWordsOf(turns: readonly string[], random: () => number): string {
  for (;;) {
    const turn = turns[Math.floor(random() * turns.length)] as string;
    // The speaker's name is left out: it is in a third of all texts, not a topic.
    const content = words(turn.slice(turn.indexOf(':') + 1)).filter(
      (w) => w.length >= 3 && !/\d/.test(w) && !isStopWord(w),
    );
    if (content.length === 0) continue;
    const length = Math.min(content.length, 1 + Math.floor(random() * 3));
    const start = Math.floor(random() * (content.length - length + 1));
    return content.slice(start, start + length).join(' ');
  }
}
