// The question save_memory puts to the person when a new memory may contradict earlier ones
// (form elicitation): one choice per pair, the choices settle_conflict offers. Only memory text
// is shown, cut short and on one line; what comes back is the client's and is checked here.
import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';
import { ASKED_KEEPS } from '../contract/save-memory.js';
import type { SettleConflictInput } from '../contract/settle-conflict.js';
import type { LinkedMemory } from '../memory/facts/links.js';
import { preview } from '../memory/present.js';

/** Pairs asked about in one question; the others wait in the review queue. */
export const MAX_ASKED = 3;
/** Characters of a memory's text the question shows. */
export const SHOWN_CHARS = 160;

export type AskedKeep = (typeof ASKED_KEEPS)[number];

/** An answer to one pair: the earlier memory, and which holds. */
export interface PairAnswer {
  memory_id: string;
  keep: AskedKeep;
}

/** How settle_conflict is called for an answer, the new memory being memory_id. */
export const SETTLE_KEEP: Record<AskedKeep, SettleConflictInput['keep']> = {
  new: 'first',
  old: 'second',
  both: 'both',
  merge: 'merge',
};

const CHOICE_TITLES: Record<AskedKeep, string> = {
  new: 'The new one holds',
  old: 'The earlier one holds',
  both: 'Both hold',
  merge: 'Merge them into one memory',
};

const shown = (content: string) => preview(content.replace(/\s+/g, ' ').trim(), SHOWN_CHARS);

const fieldOf = (index: number) => `pair_${index + 1}`;

/**
 * The pairs a question asks about, and the choices each offers: merge (both texts in one
 * memory, as settle_conflict merges by default) only when there is one pair, since a merge
 * archives the new memory the other pairs would be settled against.
 */
function offered(conflicts: readonly LinkedMemory[]) {
  const asked = conflicts.slice(0, MAX_ASKED);
  const keeps = ASKED_KEEPS.filter((keep) => keep !== 'merge' || asked.length === 1);
  return { asked, keeps };
}

/** The form: a flat object, one single-choice string field per pair. */
export function conflictQuestion(
  content: string,
  conflicts: readonly LinkedMemory[],
): ElicitRequestFormParams {
  const { asked, keeps } = offered(conflicts);
  const properties: Record<
    string,
    ElicitRequestFormParams['requestedSchema']['properties'][string]
  > = {};
  asked.forEach((memory, index) => {
    properties[fieldOf(index)] = {
      type: 'string',
      title: `Earlier: "${shown(memory.content)}"`,
      oneOf: keeps.map((keep) => ({ const: keep, title: CHOICE_TITLES[keep] })),
    };
  });
  const earlier = asked.length === 1 ? 'an earlier one' : `${asked.length} earlier ones`;
  return {
    mode: 'form',
    message: `The memory just saved may contradict ${earlier}. New: "${shown(content)}". Which holds? Without an answer, both wait in the review queue.`,
    // With several pairs the person may answer some and leave the others to the review queue.
    requestedSchema: {
      type: 'object',
      properties,
      ...(asked.length === 1 ? { required: Object.keys(properties) } : {}),
    },
  };
}

/**
 * The person's answers to a question about `conflicts` (the content of an accepted form): only
 * a field asked and a choice offered count; anything else leaves its pair in the review queue.
 */
export function readAnswers(
  conflicts: readonly LinkedMemory[],
  content: Record<string, unknown> | undefined,
): PairAnswer[] {
  if (content === undefined || content === null || typeof content !== 'object') return [];
  const { asked, keeps } = offered(conflicts);
  const answers: PairAnswer[] = [];
  asked.forEach((memory, index) => {
    const value = Object.hasOwn(content, fieldOf(index)) ? content[fieldOf(index)] : undefined;
    const keep = keeps.find((k) => k === value);
    if (keep !== undefined) answers.push({ memory_id: memory.memory_id, keep });
  });
  return answers;
}
