// LoCoMo's turns as memories and its questions as hits: what bench:recall (over MCP) and
// bench/recall-fast.ts (in process) count the same way.

import type { Turn } from './locomo-sessions.js';
import type { Figures } from './recall-report.js';

export interface Qa {
  question: string;
  evidence: string[];
  category: number;
}

export interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}

export interface Tally {
  n: number;
  turn5: number;
  turn10: number;
  session5: number;
}

export const CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

export function memoryContent(turn: Turn): string {
  const caption = turn.blip_caption?.trim();
  return `${turn.speaker}: ${turn.text}${caption ? ` [image: ${caption}]` : ''}`;
}

export const sessionOf = (diaId: string) => diaId.slice(0, diaId.indexOf(':'));

/**
 * Evidence ids as D<session>:<turn>. A few entries in LoCoMo are malformed ("D8:6; D9:17",
 * "D:11:26", "D"): lists are split, a stray colon after the D dropped, and what is still not an
 * id left out; `repairs` counts the entries that needed any of this.
 */
export function evidenceOf(raw: readonly string[], repairs: { count: number }): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    let repaired = false;
    const parts = entry.trim().split(/[;,\s]+/);
    if (parts.length > 1) repaired = true;
    for (const part of parts) {
      const m = /^D(:?)(\d+):(\d+)$/.exec(part);
      if (!m) {
        repaired = true;
        continue;
      }
      if (m[1]) repaired = true;
      out.push(`D${m[2]}:${m[3]}`);
    }
    if (repaired) repairs.count++;
  }
  return out;
}

/**
 * Counts one question's answer into `tallies` (key 0: all questions; else its category): `ranked`
 * holds, best first, the dia_ids each result stands for.
 */
export function tallyAnswer(
  tallies: Map<number, Tally>,
  qa: Qa,
  ranked: readonly (readonly string[])[],
  repairs: { count: number },
): { turn5: boolean } {
  const evidence = new Set(evidenceOf(qa.evidence, repairs));
  const sessions = new Set([...evidence].map(sessionOf));
  const turnHit = (k: number) => ranked.slice(0, k).some((ids) => ids.some((d) => evidence.has(d)));
  const sessionHit = (k: number) =>
    ranked.slice(0, k).some((ids) => ids.some((d) => sessions.has(sessionOf(d))));
  for (const key of [0, qa.category]) {
    const t = tallies.get(key) ?? { n: 0, turn5: 0, turn10: 0, session5: 0 };
    t.n++;
    if (turnHit(5)) t.turn5++;
    if (turnHit(10)) t.turn10++;
    if (sessionHit(5)) t.session5++;
    tallies.set(key, t);
  }
  return { turn5: turnHit(5) };
}

export function figures(t: Tally): Figures {
  const r = (x: number) => (t.n === 0 ? 0 : Math.round((x / t.n) * 1000) / 1000);
  return {
    turn_any_at_5: r(t.turn5),
    turn_any_at_10: r(t.turn10),
    session_any_at_5: r(t.session5),
  };
}

const EMPTY: Tally = { n: 0, turn5: 0, turn10: 0, session5: 0 };

/** The figures of every category, in category order. */
export function byCategory(tallies: Map<number, Tally>) {
  return Object.entries(CATEGORIES).map(([c, name]) => {
    const t = tallies.get(Number(c)) ?? EMPTY;
    return { category: Number(c), name, n: t.n, ...figures(t) };
  });
}

export const overall = (tallies: Map<number, Tally>) => figures(tallies.get(0) ?? EMPTY);
