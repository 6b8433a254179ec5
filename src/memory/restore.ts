// A memory brought back whose content a live memory holds already: merged into that one, so the
// same content is never live twice (as saving it again would reinforce the live one). Pure.

import type { MemoryRecord } from '../storage/records.js';

/** The ids of the memories merged into this one by restores (meta.extra.merged_from). */
export function mergedFrom(record: MemoryRecord): string[] {
  const ids = record.meta.extra.merged_from;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * The live memory with the restored one merged in: it keeps its id, content, status and note,
 * and gains the restored one's history: uses, reviews and cross-domain uses summed, the earlier
 * creation, the stronger strength, tags and entities united (its own first), source and context
 * where it has none. It is used now, as a restore is. The restored id is listed under
 * meta.extra.merged_from, so restoring it again adds nothing twice. The review priority is the
 * caller's to compute.
 */
export function mergeRestored(
  live: MemoryRecord,
  restored: MemoryRecord,
  now: number,
): MemoryRecord {
  const latestReview = Math.max(
    live.last_review_at ?? Number.NEGATIVE_INFINITY,
    restored.last_review_at ?? Number.NEGATIVE_INFINITY,
  );
  return {
    ...live,
    created_at: Math.min(live.created_at, restored.created_at),
    last_used: Math.max(live.last_used, now),
    use_count: live.use_count + restored.use_count,
    strength: Math.max(live.strength, restored.strength),
    review_count: live.review_count + restored.review_count,
    last_review_at: Number.isFinite(latestReview) ? latestReview : null,
    cross_domain_count: live.cross_domain_count + restored.cross_domain_count,
    entities: [...new Set([...live.entities, ...restored.entities])],
    meta: {
      tags: [...new Set([...live.meta.tags, ...restored.meta.tags])],
      source: live.meta.source ?? restored.meta.source,
      context: live.meta.context ?? restored.meta.context,
      extra: {
        ...restored.meta.extra,
        ...live.meta.extra,
        merged_from: [...mergedFrom(live), restored.id],
      },
    },
  };
}
