// The memory: its use cases over one shared context. What the MCP tools and the CLI call.
import { Browsing } from './browsing.js';
import { Conflicts } from './conflicts.js';
import { Consolidation } from './consolidation.js';
import type { MemoryContext } from './context.js';
import { Editing } from './editing.js';
import { Forgetting } from './forgetting.js';
import { Graph } from './graph.js';
import { Overview } from './overview.js';
import { Promotion } from './promotion.js';
import { Recall } from './recall.js';
import { Stats } from './stats.js';
import { Writing } from './writing.js';

export interface Memory {
  writing: Writing;
  editing: Editing;
  recall: Recall;
  graph: Graph;
  forgetting: Forgetting;
  promotion: Promotion;
  consolidation: Consolidation;
  /** Pairs of memories that contradict, until a person settles them. */
  conflicts: Conflicts;
  stats: Stats;
  /** What resources and prompts browse: memories by score, the review queue, notes, the anchor. */
  overview: Overview;
  /** Lists for a person to look through: memories by a column, the spread of scores. */
  browsing: Browsing;
  /** The memory's clock: the wall clock, or the instant a command was told to act at. */
  now(): number;
  /**
   * The same memory seen at instant `at` (epoch seconds), as `--at` sees it: what gc would
   * forget by then. Only previews should be asked of it; it writes as if it were then.
   */
  at(at: number): Memory;
}

export function createMemory(ctx: MemoryContext): Memory {
  return {
    writing: new Writing(ctx),
    editing: new Editing(ctx),
    recall: new Recall(ctx),
    graph: new Graph(ctx),
    forgetting: new Forgetting(ctx),
    promotion: new Promotion(ctx),
    consolidation: new Consolidation(ctx),
    conflicts: new Conflicts(ctx),
    stats: new Stats(ctx),
    overview: new Overview(ctx),
    browsing: new Browsing(ctx),
    now: ctx.clock,
    at: (at) => createMemory({ ...ctx, clock: () => at }),
  };
}
