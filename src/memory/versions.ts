// A memory's earlier states, kept on its record: what update_memory replaced, and what
// restore_memory brings back. Pure.
import { MAX_VERSIONS } from '../contract/limits.js';
import type { MemoryRecord, MemoryVersion } from '../storage/records.js';

/** What an update may change: the rest of the record stays. */
export interface VersionedFields {
  content: string;
  tags: string[];
  entities: string[];
  /** The free-form part of meta (meta.extra). */
  meta: Record<string, unknown>;
}

/** The record's earlier versions, oldest first (none when never changed). */
export function versionsOf(record: MemoryRecord): MemoryVersion[] {
  return record.versions ?? [];
}

/** The number of the record's current state: 1 for the original, one past the last kept. */
export function currentVersion(record: MemoryRecord): number {
  return (versionsOf(record).at(-1)?.version ?? 0) + 1;
}

/** What `record` holds now, as the fields a version keeps. */
export function currentFields(record: MemoryRecord): VersionedFields {
  return {
    content: record.content,
    tags: record.meta.tags,
    entities: record.entities,
    meta: record.meta.extra,
  };
}

/**
 * `record` with `next` current and its present state kept as the newest version (replaced
 * `at`); the oldest versions go past MAX_VERSIONS. Uses, strength and status are untouched:
 * a change is not a use.
 */
export function withNewVersion(
  record: MemoryRecord,
  next: VersionedFields,
  at: number,
): MemoryRecord {
  const kept: MemoryVersion = {
    version: currentVersion(record),
    ...currentFields(record),
    replaced_at: at,
  };
  return {
    ...record,
    content: next.content,
    entities: next.entities,
    meta: { ...record.meta, tags: next.tags, extra: next.meta },
    versions: [...versionsOf(record), kept].slice(-MAX_VERSIONS),
  };
}
