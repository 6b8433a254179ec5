// The on-disk shapes (mnemex/cortexgraph compatible). Times are integer epoch seconds.

/**
 * `superseded`: a newer memory states a newer value of the same fact (its `superseded_by`); kept,
 * fading as any other, but out of search unless asked for. Last, so the codes the sidecar keeps
 * for the first three (1 + the index) did not change.
 */
export const MEMORY_STATUSES = ['active', 'promoted', 'archived', 'superseded'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

export const RELATION_TYPES = [
  'related',
  'causes',
  'supports',
  'contradicts',
  'has_decision',
  'consolidated_from',
  'conflicts_with',
] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/**
 * Fields of a stored record that mnemo does not use (cortexgraph's `embed` vector, what a newer
 * writer adds), kept to be written back as they were. Under a symbol key: a spread carries them
 * along with the record, JSON.stringify leaves them out, so tool results keep their shape and
 * only `storedShape` puts them back on disk.
 */
export const OTHER_FIELDS: unique symbol = Symbol('other fields');

export type OtherFields = Record<string, unknown>;

export interface MemoryMeta {
  tags: string[];
  source: string | null;
  context: string | null;
  extra: Record<string, unknown>;
  [OTHER_FIELDS]?: OtherFields;
}

/**
 * An earlier state of a memory, kept when update_memory or restore_memory (with a version)
 * changed it. `meta` is the free-form part (meta.extra); `replaced_at` is when it stopped being
 * current.
 */
export interface MemoryVersion {
  version: number;
  content: string;
  tags: string[];
  entities: string[];
  meta: Record<string, unknown>;
  replaced_at: number;
}

export interface MemoryRecord {
  id: string;
  content: string;
  meta: MemoryMeta;
  entities: string[];
  created_at: number;
  last_used: number;
  use_count: number;
  strength: number;
  status: MemoryStatus;
  promoted_at: number | null;
  promoted_to: string | null;
  review_priority: number;
  review_count: number;
  last_review_at: number | null;
  cross_domain_count: number;
  /**
   * Earlier states, oldest first; absent until the memory is first changed in place. Written
   * after the fields cortexgraph knows (it keeps an unknown field as it is), and on PostgreSQL
   * in the `other` column, so neither format changed for it.
   */
  versions?: MemoryVersion[];
  /** The newer memory that made this one superseded (with that status); absent otherwise. */
  superseded_by?: string;
  /** The memories this one superseded when it was saved; absent when none. */
  supersedes?: string[];
  [OTHER_FIELDS]?: OtherFields;
}

/** The most ids a memory's `supersedes` keeps from disk. */
export const MAX_SUPERSEDES = 100;

export interface RelationRecord {
  id: string;
  from_memory_id: string;
  to_memory_id: string;
  relation_type: RelationType;
  strength: number;
  created_at: number;
  metadata: Record<string, unknown>;
  [OTHER_FIELDS]?: OtherFields;
}

export interface Tombstone {
  id: string;
  _deleted: true;
}

/** A memory made at `at`, never used yet; `fields` overrides any default. */
export function newMemoryRecord(
  id: string,
  content: string,
  at: number,
  fields: Partial<MemoryRecord> = {},
): MemoryRecord {
  return {
    id,
    content,
    meta: { tags: [], source: null, context: null, extra: {} },
    entities: [],
    created_at: at,
    last_used: at,
    use_count: 0,
    strength: 1,
    status: 'active',
    promoted_at: null,
    promoted_to: null,
    review_priority: 0,
    review_count: 0,
    last_review_at: null,
    cross_domain_count: 0,
    ...fields,
  };
}

/** The largest strength kept from disk (what mnemo computes stays within 1..2). */
const MAX_STORED_STRENGTH = 2;

export class RecordError extends Error {
  override name = 'RecordError';
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Epoch seconds a JavaScript Date can hold (±8.64e15 ms), and PostgreSQL's bigint with them: a
 * file's 1e300 was stored as it was, then every date shown of it threw (toISOString), and on
 * PostgreSQL the whole import batch failed.
 */
const MAX_EPOCH = 8_640_000_000_000;
/** Uses, reviews and cross-domain uses kept at most: PostgreSQL's integer, with room for more. */
const MAX_COUNT = 1_000_000_000;

const bounded = (n: number, max: number) => Math.min(max, Math.max(-max, n));

const epoch = (v: unknown, fallback: number): number => {
  if (typeof v === 'number' && Number.isFinite(v)) return bounded(Math.floor(v), MAX_EPOCH);
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return bounded(Math.floor(n), MAX_EPOCH);
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return Math.floor(ms / 1000);
  }
  return fallback;
};

const finite = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : fallback;

const count = (v: unknown): number => Math.min(MAX_COUNT, Math.max(0, Math.floor(finite(v, 0))));

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** A memory's fields, in the order mnemo writes them. */
export const MEMORY_FIELDS = [
  'id',
  'content',
  'meta',
  'entities',
  'created_at',
  'last_used',
  'use_count',
  'strength',
  'status',
  'promoted_at',
  'promoted_to',
  'review_priority',
  'review_count',
  'last_review_at',
  'cross_domain_count',
] as const;
/** A relation's fields, in the order mnemo writes them. */
export const RELATION_FIELDS = [
  'id',
  'from_memory_id',
  'to_memory_id',
  'relation_type',
  'strength',
  'created_at',
  'metadata',
] as const;
// Known, not kept among the other fields: `namespace` (the store reads it, and writes it back
// itself), `versions` (optional, so not a column of its own on PostgreSQL) and `_deleted`, which
// would make the stored line a tombstone: a record an import or a hand edit brings with it is
// a record, never the deletion of its id.
// `superseded_by` and `supersedes` are optional too, kept like `versions`.
const MEMORY_KEYS = new Set<string>([
  ...MEMORY_FIELDS,
  'namespace',
  'versions',
  'superseded_by',
  'supersedes',
  '_deleted',
]);
const META_KEYS = new Set<string>(['tags', 'source', 'context', 'extra']);
const RELATION_KEYS = new Set<string>([...RELATION_FIELDS, 'namespace', '_deleted']);

/** The fields of `raw` outside `known`, with those it carried already; undefined when none. */
function otherFields(
  raw: Record<string, unknown>,
  known: ReadonlySet<string>,
): OtherFields | undefined {
  let other = (raw as { [OTHER_FIELDS]?: OtherFields })[OTHER_FIELDS];
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue;
    other = { ...other, [key]: raw[key] };
  }
  return other;
}

/** Sets `other` on `target` when there is any (records without keep their plain shape). */
function withOther<T extends { [OTHER_FIELDS]?: OtherFields }>(
  target: T,
  other: OtherFields | undefined,
): T {
  if (other !== undefined) target[OTHER_FIELDS] = other;
  return target;
}

/**
 * A record as it is stored: its fields, then those mnemo does not use (its own `meta`'s too).
 * The record itself when it has none.
 */
export function storedShape(value: unknown): unknown {
  if (!isObject(value)) return value;
  const other = (value as { [OTHER_FIELDS]?: OtherFields })[OTHER_FIELDS];
  const meta = value.meta as { [OTHER_FIELDS]?: OtherFields } | undefined;
  const metaOther = isObject(meta) ? meta[OTHER_FIELDS] : undefined;
  if (other === undefined && metaOther === undefined) return value;
  const out: Record<string, unknown> = { ...value, ...other };
  if (metaOther !== undefined) out.meta = { ...meta, ...metaOther };
  return out;
}

/**
 * Turns a parsed line into a memory record, filling what older writers (cortexgraph, mnemex)
 * left out. Values are kept as they are stored (mnemo clamps only what it computes); the fields
 * mnemo does not use, such as their `embed` vectors, go under OTHER_FIELDS.
 */
export function toMemoryRecord(raw: unknown): MemoryRecord {
  if (!isObject(raw)) throw new RecordError('not a JSON object');
  const { id, content } = raw;
  if (typeof id !== 'string' || id === '') throw new RecordError('missing string "id"');
  if (typeof content !== 'string') throw new RecordError(`memory ${id}: missing string "content"`);
  const meta = isObject(raw.meta) ? raw.meta : {};
  const created = epoch(raw.created_at, 0);
  const status = MEMORY_STATUSES.includes(raw.status as MemoryStatus)
    ? (raw.status as MemoryStatus)
    : 'active';
  // Hand edits can bring anything: keep numbers finite, and strength within 0..2, the range
  // cortexgraph stores (a strength under 1, set by its user, is kept as it is).
  const strength = Math.min(MAX_STORED_STRENGTH, Math.max(0, finite(raw.strength, 1)));
  const record: MemoryRecord = {
    id,
    content,
    meta: {
      tags: strings(meta.tags),
      source: typeof meta.source === 'string' ? meta.source : null,
      context: typeof meta.context === 'string' ? meta.context : null,
      extra: isObject(meta.extra) ? meta.extra : {},
    },
    entities: strings(raw.entities),
    created_at: created,
    last_used: epoch(raw.last_used, created),
    use_count: count(raw.use_count),
    strength,
    status,
    promoted_at: raw.promoted_at == null ? null : epoch(raw.promoted_at, created),
    promoted_to: typeof raw.promoted_to === 'string' ? raw.promoted_to : null,
    review_priority: finite(raw.review_priority, 0),
    review_count: count(raw.review_count),
    last_review_at: raw.last_review_at == null ? null : epoch(raw.last_review_at, created),
    cross_domain_count: count(raw.cross_domain_count),
  };
  const versions = toVersions(raw.versions);
  if (versions.length > 0) record.versions = versions;
  const supersededBy = raw.superseded_by;
  if (typeof supersededBy === 'string' && supersededBy !== '' && supersededBy !== id) {
    record.superseded_by = supersededBy;
  }
  const supersedes = [...new Set(strings(raw.supersedes))]
    .filter((other) => other !== '' && other !== id)
    .slice(0, MAX_SUPERSEDES);
  if (supersedes.length > 0) record.supersedes = supersedes;
  withOther(record.meta, otherFields(meta, META_KEYS));
  return withOther(record, otherFields(raw, MEMORY_KEYS));
}

/**
 * The stored versions that can be read, oldest first, one per number. A hand edit may leave
 * anything here: what is not a version is dropped rather than stopping the start.
 */
function toVersions(raw: unknown): MemoryVersion[] {
  if (!Array.isArray(raw)) return [];
  const byNumber = new Map<number, MemoryVersion>();
  for (const v of raw) {
    if (!isObject(v) || typeof v.content !== 'string') continue;
    if (typeof v.version !== 'number' || !Number.isSafeInteger(v.version) || v.version < 1)
      continue;
    byNumber.set(v.version, {
      version: v.version,
      content: v.content,
      tags: strings(v.tags),
      entities: strings(v.entities),
      meta: isObject(v.meta) ? v.meta : {},
      replaced_at: epoch(v.replaced_at, 0),
    });
  }
  return [...byNumber.values()].sort((a, b) => a.version - b.version);
}

export function toRelationRecord(raw: unknown): RelationRecord {
  if (!isObject(raw)) throw new RecordError('not a JSON object');
  const { id, from_memory_id: from, to_memory_id: to } = raw;
  if (typeof id !== 'string' || id === '') throw new RecordError('missing string "id"');
  if (typeof from !== 'string' || typeof to !== 'string') {
    throw new RecordError(`relation ${id}: missing from_memory_id or to_memory_id`);
  }
  const relation: RelationRecord = {
    id,
    from_memory_id: from,
    to_memory_id: to,
    relation_type: RELATION_TYPES.includes(raw.relation_type as RelationType)
      ? (raw.relation_type as RelationType)
      : 'related',
    strength: finite(raw.strength, 1),
    created_at: epoch(raw.created_at, 0),
    metadata: isObject(raw.metadata) ? raw.metadata : {},
  };
  return withOther(relation, otherFields(raw, RELATION_KEYS));
}

export function isTombstone(raw: unknown): raw is Tombstone {
  return isObject(raw) && raw._deleted === true && typeof raw.id === 'string';
}
