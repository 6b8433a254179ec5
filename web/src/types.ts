// The shapes of the API's answers (src/ui/api.ts), as far as the page reads them.
import type { ScoreCurve } from '../../src/ui/curve.js';

export type Thresholds = ScoreCurve['thresholds'];

export interface Session {
  namespace: string;
  /** The token's namespaces; null: any (a server without a token). */
  namespaces: string[] | null;
  now: number;
  thresholds: Thresholds;
  decay: { model: string; halfLifeDays: number; beta: number };
  projected_days: number;
}

export interface Row {
  id: string;
  preview: string;
  tags: string[];
  status?: string;
  score: number;
  relevance?: number;
  use_count: number;
  last_used: number;
  review_priority?: number;
}

/** The one memory's curve: the server's own type (a type only: nothing of it is bundled). */
export type { ScoreCurve as Curve } from '../../src/ui/curve.js';

export interface FullMemory {
  id: string;
  content: string;
  meta: { tags: string[]; source: string | null; context: string | null };
  entities: string[];
  created_at: number;
  /** The day it was saved in words ("2023-05-08, a Monday") and how long ago, at the server's clock. */
  date: string;
  ago: string;
  /** The memories saved just before (offset < 0) and after it, of its session. */
  neighbours?: { memory_id: string; offset: number; date: string; content: string }[];
  last_used: number;
  use_count: number;
  strength: number;
  status: string;
  promoted_at: number | null;
  promoted_to: string | null;
  review_count: number;
  score: number;
  review_priority: number;
  relations: {
    id: string;
    from_memory_id: string;
    to_memory_id: string;
    relation_type: string;
    strength: number;
  }[];
  version: number;
  superseded_by?: { memory_id: string; content: string } | null;
  supersedes?: { memory_id: string; content: string }[];
}

/** An open conflict of the review list: two memories that contradict, the newer first. */
export interface Conflict {
  relation_id: string;
  created_at: number;
  first: { memory_id: string; content: string };
  second: { memory_id: string; content: string };
}

export interface GcRow {
  memory_id: string;
  score: number;
  age_days: number;
  last_used: number;
  use_count: number;
  preview: string;
}

export interface PromotionRow {
  memory_id: string;
  score: number;
  use_count: number;
  age_days: number;
  reason: string;
  preview: string;
}
