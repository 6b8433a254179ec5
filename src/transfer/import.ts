// The writing half of `mnemo import`: what a source yields, written into one namespace of the
// storage engine (JSONL or PostgreSQL), idempotently and in batches.
//
// Idempotent: a memory's id is the one its record holds (mnemo, cortexgraph), else one derived
// from the source's key (a hash of namespace, format and key, UUID-shaped: the same folder
// imported into two namespaces makes two memories), so a second run finds every
// memory of the first by its id and adds nothing; relations likewise. Each imported memory keeps
// `meta.extra.imported_from` ({format, key}), except from a mnemo export, which comes back as it
// was.
//
// Batches: every BATCH entries go in one transaction, all of it or none. An import stopped part
// way (a crash, a full disk, a bad entry that throws) leaves whole batches behind, and running it
// again writes only the rest.

import { createHash } from 'node:crypto';
import { contentProblem, jsonObjectProblem, storableProblem } from '../contract/rules.js';
import { MAX_CONTENT, MAX_TAGS } from '../contract/shared.js';
import type { StorageEngine } from '../storage/engine.js';
import {
  type MemoryRecord,
  newMemoryRecord,
  RecordError,
  type RelationRecord,
  storedShape,
  toMemoryRecord,
  toRelationRecord,
} from '../storage/records.js';
import type { ImportItem, ImportRelation, ImportSource, ImportSummary } from './types.js';

export interface ImportOptions {
  /** The namespace to write into (a view of the engine). */
  engine: StorageEngine;
  source: ImportSource;
  /** What the source reads: a file or a folder. */
  path: string;
  /** Counts what would be written, writes nothing. */
  dryRun?: boolean;
  /** Epoch seconds: when what the source gives no time for was made and last used. */
  clock: () => number;
  /** Entries a transaction; 500 unless told. */
  batchSize?: number;
  /** Told how far it got, after each batch. */
  onProgress?(summary: Readonly<ImportSummary>): void;
  /** Told how many bytes of the source were read, of how many (file sources only). */
  onRead?(done: number, total: number): void;
}

const BATCH = 500;
const TAG = /^[A-Za-z0-9_/-]{1,64}$/;

/** A UUID-shaped id made of `parts`: the same parts give the same id on every run. */
export function derivedId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export async function importInto(options: ImportOptions): Promise<ImportSummary> {
  const { engine, source } = options;
  await engine.ready;
  const summary: ImportSummary = {
    format: source.format,
    source: options.path,
    namespace: engine.namespaceName,
    dry_run: options.dryRun === true,
    read: 0,
    imported: 0,
    relations: 0,
    forgotten: 0,
    skipped_existing: 0,
    refused: [],
  };
  const batchSize = options.batchSize ?? BATCH;
  // With --dry-run: what earlier batches would have written, for the relations after them.
  const wouldExist = new Set<string>();
  let forgottenIds: Set<string> | undefined;
  // Every namespace's forgotten ids: one another namespace forgot is still its own (its restore
  // brings it back), so it is never written here, live or forgotten.
  let owners: ReadonlyMap<string, string> | undefined;
  /** The other namespace that holds memory `id`, live or forgotten; undefined when none does. */
  const heldElsewhere = async (id: string): Promise<string | undefined> => {
    owners ??= await engine.forgottenOwners();
    const holder = engine.namespaceOfMemory(id) ?? owners.get(id);
    return holder !== undefined && holder !== engine.namespaceName ? holder : undefined;
  };
  const heldMessage = (what: string, id: string, holder: string) =>
    `${what} ${id} is held by namespace "${holder}": an id belongs to one namespace, live or forgotten (import into "${holder}", or leave it out)`;
  let batch = newBatch();

  const exists = (id: string) => engine.memories.has(id) || wouldExist.has(id) || batch.ids.has(id);
  const refuse = (where: string, why: string) => summary.refused.push({ where, why });

  const flush = async () => {
    if (batch.size === 0) return;
    const pending = batch;
    batch = newBatch();
    if (options.dryRun) {
      for (const id of pending.ids) wouldExist.add(id);
      count(summary, pending, 0, 0);
    } else {
      // Under the engine's lock, against its latest records: what another process wrote since
      // the checks below is left out, not written twice.
      const written = await engine.transact(() => {
        const memories = pending.memories.filter((m) => !engine.memories.has(m.id));
        const relations = pending.relations.filter((r) => !engine.relations.has(r.id));
        return {
          result: { memories: memories.length, relations: relations.length },
          memories,
          relations,
          forgotten: pending.forgotten,
        };
      });
      count(
        summary,
        pending,
        pending.memories.length - written.memories,
        pending.relations.length - written.relations,
      );
    }
    options.onProgress?.(summary);
  };

  for await (const entry of source.entries(options.path, options.onRead)) {
    summary.read++;
    switch (entry.kind) {
      case 'refused':
        refuse(entry.where, entry.why);
        break;
      case 'memory': {
        const where = entry.where ?? entry.key;
        const made = storable(
          memoryOf(entry, source.format, engine.namespaceName, options.clock()),
        );
        if (typeof made === 'string') {
          refuse(where, made);
          break;
        }
        if (exists(made.id)) {
          summary.skipped_existing++;
          break;
        }
        const holder = await heldElsewhere(made.id);
        if (holder !== undefined) {
          refuse(where, heldMessage('memory', made.id, holder));
          break;
        }
        batch.add('memory', made);
        break;
      }
      case 'relation': {
        const made = storable(
          relationOf(
            entry,
            derivedId(engine.namespaceName, source.format, entry.fromKey),
            derivedId(engine.namespaceName, source.format, entry.toKey),
            options.clock(),
          ),
        );
        const where = entry.where ?? `${entry.fromKey} -> ${entry.toKey}`;
        if (typeof made === 'string') {
          refuse(where, made);
          break;
        }
        if (engine.relations.has(made.id) || batch.ids.has(made.id) || wouldExist.has(made.id)) {
          summary.skipped_existing++;
          break;
        }
        const holder = engine.namespaceOfRelation(made.id);
        if (holder !== undefined && holder !== engine.namespaceName) {
          refuse(where, heldMessage('relation', made.id, holder));
          break;
        }
        const missing = [made.from_memory_id, made.to_memory_id].find((id) => !exists(id));
        if (missing !== undefined) {
          refuse(
            where,
            `memory ${missing} is not in namespace "${engine.namespaceName}" (refused above, or never imported)`,
          );
          break;
        }
        batch.add('relation', made);
        break;
      }
      case 'forgotten': {
        const where = entry.where ?? `forgotten ${String(entry.record.id)}`;
        let record: MemoryRecord | string;
        try {
          record = storable(toMemoryRecord(entry.record));
        } catch (error) {
          refuse(where, reason(error));
          break;
        }
        if (typeof record === 'string') {
          refuse(where, record);
          break;
        }
        const holder = await heldElsewhere(record.id);
        if (holder !== undefined) {
          refuse(where, heldMessage('memory', record.id, holder));
          break;
        }
        forgottenIds ??= new Set((await engine.forgottenRecords()).map((r) => r.id));
        if (
          forgottenIds.has(record.id) ||
          batch.ids.has(record.id) ||
          engine.namespaceOfMemory(record.id) !== undefined
        ) {
          summary.skipped_existing++;
          break;
        }
        forgottenIds.add(record.id);
        batch.add('forgotten', record);
        break;
      }
    }
    if (batch.size >= batchSize) await flush();
  }
  await flush();
  return summary;
}

interface Batch {
  memories: MemoryRecord[];
  relations: RelationRecord[];
  forgotten: MemoryRecord[];
  ids: Set<string>;
  readonly size: number;
  add(kind: 'memory' | 'relation' | 'forgotten', record: MemoryRecord | RelationRecord): void;
}

function newBatch(): Batch {
  const batch: Batch = {
    memories: [],
    relations: [],
    forgotten: [],
    ids: new Set(),
    get size() {
      return batch.ids.size;
    },
    add(kind, record) {
      batch.ids.add(record.id);
      if (kind === 'memory') batch.memories.push(record as MemoryRecord);
      else if (kind === 'relation') batch.relations.push(record as RelationRecord);
      else batch.forgotten.push(record as MemoryRecord);
    },
  };
  return batch;
}

function count(summary: ImportSummary, batch: Batch, lateMemories: number, lateRelations: number) {
  summary.imported += batch.memories.length - lateMemories;
  summary.relations += batch.relations.length - lateRelations;
  summary.forgotten += batch.forgotten.length;
  summary.skipped_existing += lateMemories + lateRelations;
}

/** `made`, or why an engine cannot store it (a NUL anywhere, or nesting JSON.stringify cannot write). */
function storable<T extends MemoryRecord | RelationRecord>(made: T | string): T | string {
  if (typeof made === 'string') return made;
  const problem = storableProblem(storedShape(made));
  return problem === undefined ? made : `the record ${problem}`;
}

/** The record an item becomes, or why it cannot be imported. */
function memoryOf(
  item: ImportItem,
  format: string,
  namespace: string,
  now: number,
): MemoryRecord | string {
  const origin = format === 'mnemo' ? {} : { imported_from: { format, key: item.key } };
  if (item.record) {
    let record: MemoryRecord;
    try {
      record = toMemoryRecord(item.record);
    } catch (error) {
      return reason(error);
    }
    if (format === 'mnemo') return record;
    return { ...record, meta: { ...record.meta, extra: { ...record.meta.extra, ...origin } } };
  }
  const problem = contentProblem(item.content) ?? lengthProblem(item.content);
  if (problem !== undefined) return problem;
  const extra = { ...item.extra, ...origin };
  const extraProblem = jsonObjectProblem(extra, 'meta.extra');
  if (extraProblem !== undefined) return extraProblem;
  const tags = [...new Set(item.tags ?? [])];
  const badTag = tags.find((t) => !TAG.test(t));
  if (badTag !== undefined)
    return `tag ${JSON.stringify(badTag)} is not a tag (1 to 64 of A-Z a-z 0-9 _ / -)`;
  const created = item.created_at ?? now;
  // A memory that comes with no record of its use starts fresh: used at the import, else a
  // note written years ago would be forgotten by the first gc. Read as a stored line is, so its
  // dates and counts keep the same bounds (a note's `created: 1e300`).
  const made = newMemoryRecord(derivedId(namespace, format, item.key), item.content, created, {
    meta: {
      tags: tags.slice(0, MAX_TAGS),
      source: item.source ?? null,
      context: item.context ?? null,
      extra,
    },
    entities: [...new Set(item.entities ?? [])],
    last_used: Math.max(created, item.last_used ?? now),
    use_count: item.use_count ?? 0,
    strength: item.strength ?? 1,
    status: item.status ?? 'active',
    promoted_to: item.promoted_to ?? null,
    promoted_at: item.promoted_at ?? null,
  });
  return toMemoryRecord(made);
}

function lengthProblem(content: string): string | undefined {
  if (content.length === 0) return 'empty content';
  if (content.length > MAX_CONTENT) {
    return `content of ${content.length} characters, over save_memory's ${MAX_CONTENT}: split it`;
  }
  return undefined;
}

function relationOf(
  entry: ImportRelation,
  from: string,
  to: string,
  now: number,
): RelationRecord | string {
  if (entry.record) {
    try {
      // Its memories kept their ids (records are imported with theirs).
      return toRelationRecord(entry.record);
    } catch (error) {
      return reason(error);
    }
  }
  if (from === to) return 'a relation of a memory to itself';
  return {
    id: derivedId('relation', from, to, entry.relation_type),
    from_memory_id: from,
    to_memory_id: to,
    relation_type: entry.relation_type,
    strength: entry.strength ?? 1,
    created_at: now,
    metadata: entry.metadata ?? {},
  };
}

function reason(error: unknown): string {
  return error instanceof RecordError ? error.message : String(error);
}
