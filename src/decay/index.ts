// Pure memory dynamics: no I/O, no clock reads. Times are epoch seconds; `now` is always passed in.

export const DECAY_MODELS = ['power_law', 'exponential', 'two_component'] as const;
export type DecayModel = (typeof DECAY_MODELS)[number];

export interface DecayParams {
  model: DecayModel;
  halfLifeDays: number;
  /** Exponent on (use_count + 1). */
  beta: number;
}

export interface DangerZone {
  min: number;
  max: number;
}

export interface PromotionParams {
  threshold: number;
  minUses: number;
  useCount: number;
  windowDays: number;
}

/** The fields of a memory that its dynamics depend on. */
export interface MemoryDynamics {
  created_at: number;
  last_used: number;
  use_count: number;
  strength: number;
}

export const DAY = 86_400;
export const MAX_STRENGTH = 2;
export const MIN_STRENGTH = 1;
export const STRENGTH_STEP = 0.1;
const CROSS_DOMAIN_JACCARD = 0.3;

const POWER_LAW_ALPHA = 1.1;
const TWO_COMPONENT_WEIGHT = 0.7;
const TWO_COMPONENT_FAST_HALFLIFE = 12 * 3600;
const TWO_COMPONENT_SLOW_HALFLIFE = 7 * DAY;

/**
 * The decay curve of `params`: the fraction of a memory's weight left after `dt` seconds without
 * use, 1 at dt = 0. Its constants are worked out once, as search scores thousands per query.
 */
export function decayCurve(
  params: Pick<DecayParams, 'model' | 'halfLifeDays'>,
): (dt: number) => number {
  const halfLife = params.halfLifeDays * DAY;
  switch (params.model) {
    case 'power_law': {
      // t0 is chosen so that (1 + H/t0)^-alpha = 1/2 at the half-life H.
      const t0 = halfLife / (2 ** (1 / POWER_LAW_ALPHA) - 1);
      return (dt) => (1 + Math.max(0, dt) / t0) ** -POWER_LAW_ALPHA;
    }
    case 'exponential': {
      const lambda = Math.LN2 / halfLife;
      return (dt) => Math.exp(-lambda * Math.max(0, dt));
    }
    case 'two_component': {
      const fast = Math.LN2 / TWO_COMPONENT_FAST_HALFLIFE;
      const slow = Math.LN2 / TWO_COMPONENT_SLOW_HALFLIFE;
      return (dt) => {
        const t = Math.max(0, dt);
        return (
          TWO_COMPONENT_WEIGHT * Math.exp(-fast * t) +
          (1 - TWO_COMPONENT_WEIGHT) * Math.exp(-slow * t)
        );
      };
    }
  }
}

/** score = (use_count + 1)^beta * decay(now - last_used) * strength, with `params` fixed. */
export function decayScorer(params: DecayParams): (memory: MemoryDynamics, now: number) => number {
  const curve = decayCurve(params);
  const beta = params.beta;
  return (memory, now) =>
    (memory.use_count + 1) ** beta * curve(now - memory.last_used) * memory.strength;
}

/** score = (use_count + 1)^beta * decay(now - last_used) * strength */
export function decayScore(memory: MemoryDynamics, now: number, params: DecayParams): number {
  return decayScorer(params)(memory, now);
}

/** 0 outside the danger zone; inside, an arch that peaks (1) at the zone's middle. */
export function reviewPriority(score: number, zone: DangerZone): number {
  if (!(score >= zone.min && score <= zone.max) || zone.max <= zone.min) return 0;
  const x = (score - zone.min) / (zone.max - zone.min);
  return 1 - 4 * (x - 0.5) ** 2;
}

function jaccard(a: readonly string[], b: readonly string[]): number {
  const left = new Set(a.map((t) => t.toLowerCase()));
  const right = new Set(b.map((t) => t.toLowerCase()));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const t of left) if (right.has(t)) shared++;
  return shared / (left.size + right.size - shared);
}

/** A use in a context whose tags barely overlap the memory's own. */
export function isCrossDomain(
  memoryTags: readonly string[],
  contextTags: readonly string[],
): boolean {
  if (memoryTags.length === 0 || contextTags.length === 0) return false;
  return jaccard(memoryTags, contextTags) < CROSS_DOMAIN_JACCARD;
}

export interface ReinforceOptions {
  kind: 'touch' | 'observe';
  crossDomain?: boolean;
  /** touch_memory's boost_strength: +0.1 strength, as a cross-domain use gives. */
  boostStrength?: boolean;
}

export interface Reinforcement {
  last_used: number;
  use_count: number;
  strength: number;
  review_count?: number;
  last_review_at?: number;
  cross_domain_count?: number;
  review_priority: number;
}

export function clampStrength(strength: number): number {
  return Math.min(MAX_STRENGTH, Math.max(MIN_STRENGTH, strength));
}

/**
 * `strength` plus one step, at most MAX_STRENGTH; never lower than it was, so a strength someone
 * set under 1 (cortexgraph allows it) grows from where it is.
 */
function boostedStrength(strength: number): number {
  const next = Math.min(MAX_STRENGTH, Math.round((strength + STRENGTH_STEP) * 1e9) / 1e9);
  return Math.max(strength, next);
}

/** The new values of a memory after one use at `now`; the caller merges them into the record. */
export function reinforce(
  memory: MemoryDynamics & { review_count?: number; cross_domain_count?: number },
  now: number,
  options: ReinforceOptions,
  params: DecayParams,
  zone: DangerZone,
): Reinforcement {
  const boosted = options.crossDomain === true || options.boostStrength === true;
  const next: Reinforcement = {
    last_used: now,
    use_count: memory.use_count + 1,
    strength: boosted ? boostedStrength(memory.strength) : memory.strength,
    review_priority: 0,
  };
  if (options.kind === 'observe') {
    next.review_count = (memory.review_count ?? 0) + 1;
    next.last_review_at = now;
  }
  if (options.crossDomain) next.cross_domain_count = (memory.cross_domain_count ?? 0) + 1;
  next.review_priority = reviewPriority(
    decayScore({ ...memory, ...next, created_at: memory.created_at }, now, params),
    zone,
  );
  return next;
}

export function shouldForget(score: number, status: string, threshold: number): boolean {
  // A superseded memory fades and goes as an active one does; promoted and archived ones stay.
  return (status === 'active' || status === 'superseded') && score < threshold;
}

export interface PromotionVerdict {
  eligible: boolean;
  reason: string;
}

/**
 * Promote on (score >= threshold and use_count >= minUses) or (use_count >= useCount within
 * windowDays of creation). A saved, never-used memory has use_count 0 and so never qualifies,
 * however fresh it is.
 */
export function promotionVerdict(
  memory: MemoryDynamics,
  score: number,
  now: number,
  params: PromotionParams,
): PromotionVerdict {
  const rule = promotionRule(memory, score, now, params);
  const ageDays = (now - memory.created_at) / DAY;
  if (rule === 'score') {
    return {
      eligible: true,
      reason: `score ${score.toFixed(3)} >= ${params.threshold} with ${memory.use_count} uses (>= ${params.minUses})`,
    };
  }
  if (rule === 'uses') {
    return {
      eligible: true,
      reason: `${memory.use_count} uses (>= ${params.useCount}) within ${ageDays.toFixed(1)} days of creation (<= ${params.windowDays})`,
    };
  }
  return {
    eligible: false,
    reason: `score ${score.toFixed(3)} with ${memory.use_count} uses in ${ageDays.toFixed(1)} days`,
  };
}

/**
 * Which rule makes a memory eligible for promotion, if one does: a score high enough with a few
 * uses, or many uses soon after it was made. What counting a million memories needs, without
 * the reason's text each.
 */
export function promotionRule(
  memory: MemoryDynamics,
  score: number,
  now: number,
  params: PromotionParams,
): 'score' | 'uses' | null {
  if (score >= params.threshold && memory.use_count >= params.minUses) return 'score';
  const ageDays = (now - memory.created_at) / DAY;
  if (memory.use_count >= params.useCount && ageDays <= params.windowDays) return 'uses';
  return null;
}
