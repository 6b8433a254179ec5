import type { McpServer } from '@modelcontextprotocol/server';
import { restoreMemory } from '../contract/restore-memory.js';
import { registerContract, type ToolDeps } from './register.js';

export function registerRestoreMemory(server: McpServer, { memory, logger }: ToolDeps): void {
  registerContract(server, logger, restoreMemory, {
    run: ({ memory_id, version }) =>
      version === undefined
        ? memory.forgetting.restore({ memory_id })
        : memory.editing.restoreVersion({ memory_id, version }),
    text: (done) =>
      (done.version !== undefined
        ? `${done.memory_id} is at version ${done.version} now.${noteLine(done.note)}`
        : done.merged_into
          ? `${done.memory_id} has the same content as the live memory ${done.merged_into}: merged into it.`
          : `${done.memory_id} is ${done.status}.`) + undoneLine(done.superseded_undone),
  });
}

/** A supersession undone, in a sentence (empty without one). */
export function undoneLine(undone: { memory_id: string }[] | undefined): string {
  if (!undone || undone.length === 0) return '';
  const ids = undone.map((m) => m.memory_id).join(', ');
  return ` Supersession undone: ${ids} current again (in search).`;
}

/** What became of a promoted memory's note, in a sentence (empty without one). */
export function noteLine(note: { path: string; body_updated: boolean } | undefined): string {
  if (!note) return '';
  return note.body_updated
    ? ` Its note ${note.path} has the new text.`
    : ` Its note ${note.path} was edited by a person: its text was left as it is.`;
}
