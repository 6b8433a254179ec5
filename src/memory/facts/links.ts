// What the save path does with the fact judge: finds the few live memories a new one may change
// (cheaply: the best word matches and the closest meanings), asks the judge, and, under the
// store's lock, turns its verdicts into records: the older memory superseded (its status and
// `superseded_by`), the newer one naming what it supersedes, a conflict as a `conflicts_with`
// relation for the review queue. Also the way back: undoing a supersession.
import { randomUUID } from 'node:crypto';
import { modelDefaults } from '../../search/model-defaults.js';
import type { Retriever } from '../../search/retriever.js';
import { dot } from '../../search/vector-index.js';
import { wordNeighbours } from '../../search/word-neighbours.js';
import type { StorageEngine } from '../../storage/engine.js';
import { MemoryTable } from '../../storage/memory-table.js';
import type { MemoryRecord, MemoryStatus, RelationRecord } from '../../storage/records.js';
import type { MemoryContext } from '../context.js';
import { preview } from '../present.js';
import { FactKeys, lookupKeys } from './fact-keys.js';
import { type FactCandidate, type FactVerdict, statementFacts } from './judge.js';

/** Candidates taken from each side (words, meaning): a few, so the save stays cheap. */
const CANDIDATES_EACH = 10;
/** Candidates taken under each (subject, kind) the new memory states (fact-keys.ts). */
const KEYED_EACH = 5;
/** What a supersession or conflict shows of the other memory. */
export const LINK_PREVIEW = 200;

/** The statuses a new memory can change: what search shows by default. */
const CHANGEABLE: readonly MemoryStatus[] = ['active', 'promoted'];

/** Another memory, as save_memory, open_memories and the review queue name it. */
export interface LinkedMemory {
  memory_id: string;
  content: string;
}

export const linked = (record: MemoryRecord): LinkedMemory => ({
  memory_id: record.id,
  content: preview(record.content, LINK_PREVIEW),
});

/**
 * The live memories of this namespace that `content` may change: the best word matches and,
 * with a vector, the closest meanings above the search threshold, each with its cosine when
 * both have a vector.
 */
export async function factCandidates(
  ctx: MemoryContext,
  content: string,
  vector: Float32Array | undefined,
): Promise<FactCandidate[]> {
  const { engine, retriever, semantic, settings } = ctx;
  const ids = wordNeighbours(retriever.lexical, content, CANDIDATES_EACH, CHANGEABLE).map(
    (n) => n.id,
  );
  // The memories that state a fact of the same subject and kind, whatever their words.
  const keys = lookupKeys(content, statementFacts(content));
  if (keys.length > 0) ids.push(...factKeysOf(ctx).lookup(keys, KEYED_EACH, CHANGEABLE));
  const useMeaning = vector !== undefined && semantic?.enabled === true;
  if (useMeaning) {
    const threshold = settings.similarityThreshold ?? modelDefaults(semantic.model).similarity;
    // The approximate index's first candidates (SearchDepth): a save waits for this.
    const hits = await semantic.search(
      vector,
      threshold,
      CANDIDATES_EACH,
      (id) => engine.memories.has(id),
      'first',
    );
    ids.push(...hits.ids);
  }
  const out: FactCandidate[] = [];
  for (const id of new Set(ids)) {
    const record = engine.memories.get(id);
    if (!record || !CHANGEABLE.includes(record.status)) continue;
    const theirs = useMeaning ? semantic.vectorOf(id) : undefined;
    out.push({
      id,
      content: record.content,
      createdAt: record.created_at,
      similarity: theirs && vector ? dot(vector, theirs) : undefined,
    });
  }
  return out;
}

/** Each retriever's (one a namespace) index of fact keys. */
const factKeysByRetriever = new WeakMap<Retriever, FactKeys>();

/** The index of fact keys of `ctx`'s retriever (made now if it was not with the retriever). */
export function factKeysOf({ retriever, engine }: MemoryContext): FactKeys {
  return factKeysByRetriever.get(retriever) ?? attachFactKeys(retriever, engine);
}

/**
 * Makes the index of fact keys of `retriever` over `engine`'s memories: before the store loads,
 * so that the retriever's sidecar part takes it back.
 */
export function attachFactKeys(
  retriever: Retriever,
  engine: Pick<StorageEngine, 'memories'>,
): FactKeys {
  const memories = engine.memories;
  // Both engines keep a MemoryTable; any other map is read as a map.
  const table = memories instanceof MemoryTable ? memories : undefined;
  const keys = new FactKeys({
    memories,
    read: (id) => (table ? table.peek(id) : memories.get(id)),
    newest: (n) => (table ? table.newestIds(n) : [...memories.keys()].slice(-n)),
    stamp: () => retriever.lexical.matchStamp,
  });
  retriever.watch(keys);
  factKeysByRetriever.set(retriever, keys);
  return keys;
}

/** What the judge's verdicts write, in the save's transaction. */
export interface FactLinks {
  /** The older memories, now superseded by the new one. */
  superseded: MemoryRecord[];
  /** One `conflicts_with` relation from the new memory to each it contradicts. */
  conflicts: RelationRecord[];
  supersedes: LinkedMemory[];
  conflictsWith: LinkedMemory[];
}

/**
 * The verdicts as records, against the latest memories (under the lock): a candidate changed or
 * gone since it was judged (another process's write) is left alone.
 */
export function factLinks(
  ctx: MemoryContext,
  newId: string,
  now: number,
  candidates: readonly FactCandidate[],
  verdicts: readonly FactVerdict[],
): FactLinks {
  const out: FactLinks = { superseded: [], conflicts: [], supersedes: [], conflictsWith: [] };
  const judged = new Map(candidates.map((c) => [c.id, c]));
  const seen = new Set<string>();
  for (const verdict of verdicts) {
    const candidate = judged.get(verdict.id);
    if (!candidate || seen.has(verdict.id)) continue;
    seen.add(verdict.id);
    const record = ctx.engine.memories.get(verdict.id);
    if (!record || !CHANGEABLE.includes(record.status) || record.content !== candidate.content) {
      continue;
    }
    if (verdict.kind === 'supersedes') {
      out.superseded.push({ ...record, status: 'superseded', superseded_by: newId });
      out.supersedes.push(linked(record));
    } else {
      out.conflicts.push(conflictRelation(newId, record.id, now));
      out.conflictsWith.push(linked(record));
    }
  }
  return out;
}

function conflictRelation(from: string, to: string, now: number): RelationRecord {
  return {
    id: randomUUID(),
    from_memory_id: from,
    to_memory_id: to,
    relation_type: 'conflicts_with',
    strength: 1,
    created_at: now,
    metadata: {},
  };
}

/** The status a superseded memory goes back to: promoted while it still names its note. */
const statusBefore = (record: MemoryRecord): MemoryStatus =>
  record.promoted_to ? 'promoted' : 'active';

/** `record` without its `superseded_by` (and as it was before, when superseded). */
function released(record: MemoryRecord): MemoryRecord {
  const { superseded_by: _by, ...rest } = record;
  return record.status === 'superseded' ? { ...rest, status: statusBefore(record) } : rest;
}

/** `record` without `ids` among what it supersedes. */
function withoutSupersedes(record: MemoryRecord, ids: ReadonlySet<string>): MemoryRecord {
  const { supersedes: before, ...rest } = record;
  const kept = (before ?? []).filter((id) => !ids.has(id));
  return kept.length > 0 ? { ...rest, supersedes: kept } : rest;
}

/** The records that undo the supersessions `record` is part of, either side; none when none. */
export interface Unlinked {
  /** `record` itself as it is after. */
  record: MemoryRecord;
  /** The other memories changed. */
  others: MemoryRecord[];
  /** The memories that are active (or promoted) again: `record`, or what it superseded. */
  reinstated: LinkedMemory[];
}

/**
 * Undoes the links of `record` (read under the lock): a superseded memory becomes current again
 * and leaves its newer one's list; a newer one lets go of every memory it superseded. Undefined
 * when it has no link.
 */
export function unlinkSupersession(ctx: MemoryContext, record: MemoryRecord): Unlinked | undefined {
  const { memories } = ctx.engine;
  const older = (record.supersedes ?? [])
    .map((id) => memories.get(id))
    .filter((m): m is MemoryRecord => m?.superseded_by === record.id);
  if (record.superseded_by === undefined && record.supersedes === undefined) return undefined;
  const others: MemoryRecord[] = older.map(released);
  const reinstated = older.map(linked);
  let self =
    record.supersedes === undefined
      ? record
      : withoutSupersedes(record, new Set(record.supersedes));
  if (self.superseded_by !== undefined) {
    const newer = memories.get(self.superseded_by);
    if (newer?.supersedes?.includes(self.id)) {
      others.push(withoutSupersedes(newer, new Set([self.id])));
    }
    if (self.status === 'superseded') reinstated.push(linked(self));
    self = released(self);
  }
  return { record: self, others, reinstated };
}
