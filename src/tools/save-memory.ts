import type { McpServer } from '@modelcontextprotocol/server';
import { type AskedPerson, type SaveMemoryOutput, saveMemory } from '../contract/save-memory.js';
import { ConflictAsker } from './ask-person.js';
import { registerContract, type ToolDeps } from './register.js';

type Linked = { memory_id: string; content: string }[];

const named = (list: Linked) => list.map((m) => `${m.memory_id} ("${m.content}")`).join(', ');

const SETTLED_AS = {
  new: (other: string) => `${other} is superseded by it`,
  old: (other: string) => `it is superseded by ${other}`,
  both: (other: string) => `both it and ${other} hold`,
  merge: (other: string, merged: string | null) => `it and ${other} are merged into ${merged}`,
} as const;

/** The conflicts line: what the person chose, or that the pairs wait in the review queue. */
function conflictsText(conflicts: Linked, asked: AskedPerson | undefined): string {
  if (conflicts.length === 0) return '';
  const queued = 'both kept, in the review queue (settle_conflict)';
  const found = ` It may contradict ${named(conflicts)}:`;
  if (asked === undefined) return `${found} ${queued}.`;
  if (asked.answer === 'declined')
    return `${found} the person declined to say which holds; ${queued}.`;
  if (asked.answer === 'unanswered')
    return `${found} the person was asked which holds, with no answer; ${queued}.`;
  const chosen = asked.settled.map((s) => SETTLED_AS[s.keep](s.memory_id, s.merged_id));
  const rest = conflicts.length > asked.settled.length ? ` The others: ${queued}.` : '';
  return `${found} the person chose: ${chosen.join('; ')}.${rest}`;
}

export function registerSaveMemory(server: McpServer, { memory, logger, asking }: ToolDeps): void {
  const asker = asking ? new ConflictAsker(server, memory, logger, asking) : undefined;
  registerContract(server, logger, saveMemory, {
    run: (input, extra) => (asker ? asker.save(input, extra) : memory.writing.save(input)),
    text: (saved: SaveMemoryOutput) => {
      const similar = saved.similar_to.map((m) => `${m.memory_id} (${m.similarity})`).join(', ');
      return (
        (saved.deduplicated
          ? `Already remembered as ${saved.memory_id}; reinforced it.`
          : `Saved as ${saved.memory_id}.`) +
        (saved.supersedes.length > 0
          ? ` It supersedes ${named(saved.supersedes)}: out of search now.`
          : '') +
        conflictsText(saved.conflicts, saved.asked) +
        (similar ? ` Close in meaning: ${similar}.` : '')
      );
    },
  });
}
