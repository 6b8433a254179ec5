// Changing memories in place: update_memory, and restore_memory of an earlier version. The state
// replaced is kept on the record (versions.ts); a promoted memory's note follows where it is
// still mnemo's.
import type { RestoreMemoryInput, RestoreMemoryOutput } from '../contract/restore-memory.js';
import { contentProblem, jsonObjectProblem, storableProblem } from '../contract/rules.js';
import {
  UPDATABLE_FIELDS,
  type UpdateMemoryInput,
  type UpdateMemoryOutput,
} from '../contract/update-memory.js';
import type { MemoryRecord } from '../storage/records.js';
import type { ChangedNote } from '../vault/writer.js';
import type { MemoryContext } from './context.js';
import { MemoryError } from './errors.js';
import { type LinkedMemory, unlinkSupersession } from './facts/links.js';
import {
  currentFields,
  currentVersion,
  type VersionedFields,
  versionsOf,
  withNewVersion,
} from './versions.js';

type Changed = {
  memory_id: string;
  version: number;
  note?: { path: string; body_updated: boolean };
  superseded_undone?: LinkedMemory[];
};

export class Editing {
  constructor(private readonly ctx: MemoryContext) {}

  /** Changes the fields given, keeping what they replace as a version. Not a use. */
  async update(input: UpdateMemoryInput): Promise<UpdateMemoryOutput> {
    if (UPDATABLE_FIELDS.every((field) => input[field] === undefined)) {
      throw new MemoryError(
        `nothing to change: pass at least one of ${UPDATABLE_FIELDS.join(', ')}`,
        'content',
      );
    }
    if (input.content !== undefined) {
      const blank = contentProblem(input.content);
      if (blank !== undefined) throw new MemoryError(blank, 'content');
    }
    const badMeta = jsonObjectProblem(input.meta, 'meta');
    if (badMeta !== undefined) throw new MemoryError(badMeta, 'meta');
    const unstorable = storableProblem(input);
    if (unstorable !== undefined) throw new MemoryError(`the change ${unstorable}`, 'content');
    return this.change(input.memory_id, (record) => {
      const now = currentFields(record);
      return {
        content: input.content ?? now.content,
        tags: input.tags ? dedupe(input.tags) : now.tags,
        entities: input.entities ? dedupe(input.entities) : now.entities,
        meta: input.meta ?? now.meta,
      };
    });
  }

  /** Makes an earlier version current again; the current state becomes a version in turn. */
  async restoreVersion({
    memory_id,
    version,
  }: RestoreMemoryInput & { version: number }): Promise<RestoreMemoryOutput> {
    const changed = await this.change(memory_id, (record) => {
      const versions = versionsOf(record);
      const wanted = versions.find((v) => v.version === version);
      if (!wanted) {
        const there =
          versions.length === 0
            ? 'it has none: it was never updated'
            : `it has ${versions.map((v) => v.version).join(', ')}`;
        throw new MemoryError(
          `version ${version} is not a version of memory_id "${memory_id}" (${there}; ${currentVersion(record)} is current): pass one open_memories lists`,
          'version',
        );
      }
      return {
        content: wanted.content,
        tags: wanted.tags,
        entities: wanted.entities,
        meta: wanted.meta,
      };
    });
    const status = this.ctx.engine.memories.get(memory_id)?.status ?? 'active';
    return { ...changed, status };
  }

  private async change(
    memoryId: string,
    next: (record: MemoryRecord) => VersionedFields,
  ): Promise<Changed> {
    const { vault } = this.ctx;
    // A promoted memory's note is found through the vault's index too (it may have moved).
    if (vault) {
      await this.ctx.sync();
      await this.ctx.readiness.wait('vault');
    }
    let note: ChangedNote | undefined;
    const result = await this.ctx.engine.transact<Changed>(() => {
      note = undefined;
      const record = this.ctx.require(memoryId);
      const fields = next(record);
      // Nothing new: no version is added, so calling it again does no more than once.
      if (JSON.stringify(fields) === JSON.stringify(currentFields(record))) {
        return { result: { memory_id: record.id, version: currentVersion(record) } };
      }
      // A changed fact is no longer the one judged: a supersession it is part of is undone.
      const unlinked = unlinkSupersession(this.ctx, record);
      const changed = withNewVersion(unlinked?.record ?? record, fields, this.ctx.clock());
      // The note is written under the store's lock, before the record: a failure to write it
      // leaves both as they were.
      if (vault && record.status === 'promoted') note = vault.writer.change(record, changed);
      const undone = unlinked?.reinstated ?? [];
      return {
        result: {
          memory_id: record.id,
          version: currentVersion(changed),
          ...(note ? { note: { path: note.path, body_updated: note.bodyUpdated } } : {}),
          ...(undone.length > 0 ? { superseded_undone: undone } : {}),
        },
        memories: [changed, ...(unlinked?.others ?? [])],
      };
    });
    if (vault && note) {
      if (!note.bodyUpdated) {
        this.ctx.logger.info(
          { memory_id: memoryId },
          'memory changed; its note was edited by a person, so its text was left as it is',
        );
      }
      vault.notes.upsert(note.path, note.text);
      // What it is searched by: its note's text, as it is now.
      await vault.sync.recheck(memoryId);
    }
    return result;
  }
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
