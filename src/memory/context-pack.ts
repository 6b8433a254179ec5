// The context pack: what an agent should know before it starts on a topic, in one Markdown text
// within a token budget. The anchor (the person's own file), the memories search_memory ranks
// first for the topic (without one, the liveliest), and the memories due for review.
import path from 'node:path';
import type { Memory } from './index.js';
import { preview } from './present.js';

export const DEFAULT_PACK_TOKENS = 2000;
export const MAX_PACK_TOKENS = 100_000;
/** The smallest budget a pack is made for: the heading and the tokenizer's line. */
export const MIN_PACK_TOKENS = 100;
/** Memories a pack considers, before the budget decides how many fit. */
const RELEVANT = 30;
const REVIEW = 10;
/** Characters of a memory's text a pack shows at most. */
const MEMORY_CHARS = 600;

/**
 * The tokenizer a pack is measured with: about 4 characters a token (rounded up), the usual
 * figure for English text with the common models' tokenizers. Deliberately simple: it is stated
 * in the pack and in the README, so a client can check a budget without a model's vocabulary.
 */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface PackInput {
  topic?: string | undefined;
  maxTokens?: number | undefined;
  /** MNEMO_ANCHOR_FILE, when set. */
  anchorFile?: string | undefined;
}

export interface ContextPack {
  text: string;
  tokens: number;
  memoryIds: string[];
  reviewIds: string[];
  /** Whether the anchor, or the start of it, is in the pack. */
  anchor: boolean;
  /** What did not fit. */
  leftOut: number;
}

export async function buildContextPack(memory: Memory, input: PackInput): Promise<ContextPack> {
  const budget = Math.min(
    MAX_PACK_TOKENS,
    Math.max(MIN_PACK_TOKENS, Math.floor(input.maxTokens ?? DEFAULT_PACK_TOKENS)),
  );
  const topic = input.topic?.trim() ?? '';
  const head = [
    topic ? `# Context pack: ${oneLine(topic)}` : '# Context pack',
    `(mnemo; at most ${budget} tokens, counted as ceil(characters / 4))`,
    '',
  ].join('\n');
  const parts: string[] = [head];
  let used = countTokens(head);
  let leftOut = 0;
  /** Adds `text` when it fits the budget with the parts so far (a newline joins each). */
  const add = (text: string): boolean => {
    const cost = countTokens(`\n${text}`);
    if (used + cost > budget) return false;
    parts.push(text);
    used += cost;
    return true;
  };

  let anchorIn = false;
  const anchor = memory.overview.anchor(input.anchorFile);
  if (anchor) {
    // MNEMO_ANCHOR_FILE is a path of the server's: the pack, which a remote caller reads, names
    // its file only.
    const source = path.isAbsolute(anchor.source) ? path.basename(anchor.source) : anchor.source;
    const heading = `## Anchor (${source})\n`;
    const body = anchor.text.trim();
    if (!add(`${heading}${body}\n`)) {
      // The anchor is the person's: its start, cut where the budget ends, rather than nothing
      // (half the budget at most, so the memories keep room).
      const room = Math.min(budget - used, Math.floor(budget / 2)) * 4 - heading.length - 12;
      if (room > 40 && add(`${heading}${preview(body, room)}\n`)) anchorIn = true;
      else leftOut++;
    } else {
      anchorIn = true;
    }
  }

  const search = await memory.recall.search({
    ...(topic ? { query: topic } : {}),
    top_k: RELEVANT,
    include_review_candidates: false,
    preview_length: MEMORY_CHARS,
  });
  const review = await memory.overview.reviewQueue(REVIEW);
  const shown = new Set<string>();
  const memoryIds: string[] = [];
  const reviewIds: string[] = [];

  if (search.results.length > 0) {
    add(topic ? '## Memories about the topic' : '## Memories (liveliest first)');
    for (const hit of search.results) {
      const line = `- ${oneLine(hit.content)} (id ${oneLine(hit.memory_id)}; score ${hit.score}${tagsOf(hit.tags)})`;
      if (add(line)) {
        memoryIds.push(hit.memory_id);
        shown.add(hit.memory_id);
      } else {
        leftOut++;
      }
    }
    add('');
  }

  const due = review.filter((item) => !shown.has(item.record.id));
  if (due.length > 0 && add('## Due for review (fading: still true? observe_memory_usage them)')) {
    for (const item of due) {
      const line = `- ${oneLine(preview(item.record.content, MEMORY_CHARS))} (id ${oneLine(item.record.id)}; score ${item.score}; review priority ${item.review_priority})`;
      if (add(line)) reviewIds.push(item.record.id);
      else leftOut++;
    }
  } else {
    leftOut += due.length;
  }
  if (memoryIds.length === 0 && reviewIds.length === 0) {
    add(topic ? '_No memory matches this topic yet._' : '_No memories yet._');
  }
  const text = parts.join('\n');
  return {
    text,
    tokens: countTokens(text),
    memoryIds,
    reviewIds,
    anchor: anchorIn,
    leftOut,
  };
}

/**
 * Text of a memory on one line of the pack or a prompt: its content, and its id and tags too,
 * which a synced log or an imported record can fill with any text (a newline there forged a
 * `## Anchor` heading of the pack). NEL (U+0085), a line break to Unicode, is not in `\s`.
 */
export const oneLine = (text: string) => text.replace(/[\s\u0085]+/g, ' ').trim();
const tagsOf = (tags: string[]) =>
  tags.length > 0 ? `; tags ${tags.map(oneLine).join(', ')}` : '';
