// Pre-filled stores, written straight to disk in each server's own line format.
import { JsonlFile } from '../../src/storage/jsonl/jsonl-file.js';
import { type MemoryRecord, newMemoryRecord } from '../../src/storage/records.js';
import { seededRandom } from './content.js';

const DAY = 86_400;

/** A version-4-shaped UUID from a seeded stream, so ids are the same every run. */
function seededUuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * One mnemo record per text, created over the past 120 days and last used some time since, with
 * a few uses and strengths above 1 here and there, so decay scores spread out.
 */
export function mnemoRecords(texts: readonly string[], now: number, seed = 11): MemoryRecord[] {
  const random = seededRandom(seed);
  return texts.map((content) => {
    const created = now - Math.floor(random() * 120 * DAY);
    const lastUsed = created + Math.floor(random() * (now - created));
    return newMemoryRecord(seededUuid(random), content, created, {
      last_used: lastUsed,
      use_count: Math.floor(-Math.log(1 - random()) * 2),
      strength: random() < 0.1 ? 1 + Math.round(random() * 10) / 10 : 1,
    });
  });
}

/**
 * Writes `lines` (JSON values) as JSON Lines, synced to disk, so the first durable save of a
 * server does not pay for flushing the whole pre-filled file.
 */
function writeJsonl(file: string, lines: Iterable<unknown>): void {
  const out = new JsonlFile(file);
  try {
    out.rewrite(lines);
  } finally {
    out.close();
  }
}

/** DIR/memories.jsonl for mnemo. */
export function writeMnemoStore(file: string, texts: readonly string[], now: number): void {
  writeJsonl(file, mnemoRecords(texts, now));
}

/**
 * DIR/memories.jsonl where every memory qualifies for the vault: made a day ago and used five
 * times since (the promotion rule in the README: use_count >= 5 within 14 days of creation).
 */
export function writePromotableStore(file: string, texts: readonly string[], now: number): void {
  const random = seededRandom(13);
  writeJsonl(
    file,
    texts.map((content) =>
      newMemoryRecord(seededUuid(random), content, now - DAY, { last_used: now, use_count: 5 }),
    ),
  );
}

/** server-memory's entity name for the i-th memory. */
export const entityName = (i: number) => `memory-${String(i).padStart(6, '0')}`;

/** server-memory's knowledge graph: one entity per text, the text as its one observation. */
export function writeServerMemoryStore(file: string, texts: readonly string[]): void {
  writeJsonl(
    file,
    texts.map((text, i) => ({
      type: 'entity',
      name: entityName(i),
      entityType: 'memory',
      observations: [text],
    })),
  );
}
