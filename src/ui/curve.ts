// A memory's score over time, for the web page's plot: the past as its record tells it, the next
// days as they will be if nobody uses it. Pure: `now` is passed in.
import {
  DAY,
  type DangerZone,
  type DecayParams,
  decayCurve,
  type MemoryDynamics,
} from '../decay/index.js';

export interface CurveSettings {
  decay: DecayParams;
  dangerZone: DangerZone;
  forgetThreshold: number;
  promoteThreshold: number;
}

export interface ScoreCurve {
  now: number;
  /** Instants (epoch seconds), ascending; `past` and `future` are their scores, null outside. */
  t: number[];
  past: (number | null)[];
  future: (number | null)[];
  /** The uses drawn: the record keeps their count and the last one only, so the rest are spread. */
  uses: number[];
  usesSpread: boolean;
  thresholds: { forget: number; dangerMin: number; dangerMax: number; promote: number };
  /** When the projected score falls under the forget threshold, if within the days projected. */
  forgetAt: number | null;
}

export const PROJECTED_DAYS = 90;
const PAST_SAMPLES = 240;
const FUTURE_SAMPLES = 180;
const USES_DRAWN = 60;

/**
 * The curve of `memory` at `now`. Its uses before the last one are taken as evenly spread
 * between its creation and its last use (the record holds no more); its strength as it is now.
 */
export function scoreCurve(
  memory: MemoryDynamics,
  now: number,
  settings: CurveSettings,
): ScoreCurve {
  const decay = decayCurve(settings.decay);
  const { beta } = settings.decay;
  const n = memory.use_count;
  const created = Math.min(memory.created_at, now);
  const last = Math.min(Math.max(memory.last_used, created), now);
  const span = last - created;
  /** Uses up to `t`, and the instant of the latest (the creation when none). */
  const usesBy = (t: number): [number, number] => {
    if (n === 0 || t < created) return [0, created];
    if (t >= last) return [n, last];
    if (span <= 0) return [0, created];
    const k = Math.floor((n * (t - created)) / span);
    return [k, k === 0 ? created : created + (span * k) / n];
  };
  const scoreAt = (t: number) => {
    const [k, latest] = usesBy(t);
    return (k + 1) ** beta * decay(t - latest) * memory.strength;
  };
  const projected = (t: number) => (n + 1) ** beta * decay(t - last) * memory.strength;

  const uses: number[] = [];
  const drawn = Math.min(n, USES_DRAWN);
  for (let i = 1; i <= drawn; i++) uses.push(Math.round(created + (span * i) / drawn));
  // The sawtooth: a point just before each use drawn, and at it.
  const pastT = new Set<number>();
  for (let i = 0; i <= PAST_SAMPLES; i++) {
    pastT.add(Math.round(created + ((now - created) * i) / PAST_SAMPLES));
  }
  for (const u of uses) {
    if (u > created) pastT.add(u - 1);
    pastT.add(u);
  }
  const end = now + PROJECTED_DAYS * DAY;
  const t: number[] = [...pastT].filter((x) => x <= now).sort((a, b) => a - b);
  const past: (number | null)[] = t.map(scoreAt);
  const future: (number | null)[] = t.map(() => null);
  // Both lines meet at now.
  future[future.length - 1] = projected(now);
  for (let i = 1; i <= FUTURE_SAMPLES; i++) {
    t.push(Math.round(now + ((end - now) * i) / FUTURE_SAMPLES));
    past.push(null);
    future.push(projected(t[t.length - 1] as number));
  }
  return {
    now,
    t,
    past,
    future,
    uses,
    usesSpread: n > 1,
    thresholds: thresholdsOf(settings),
    forgetAt: crossing(projected, now, end, settings.forgetThreshold),
  };
}

/** The lines the plot draws: the forget line, the danger-zone band, the promotion line. */
export function thresholdsOf(settings: CurveSettings): ScoreCurve['thresholds'] {
  return {
    forget: settings.forgetThreshold,
    dangerMin: settings.dangerZone.min,
    dangerMax: settings.dangerZone.max,
    promote: settings.promoteThreshold,
  };
}

/** The first instant in [from, to] where `f` (never rising) is under `level`, to the minute. */
function crossing(f: (t: number) => number, from: number, to: number, level: number) {
  if (f(from) < level) return from;
  if (f(to) >= level) return null;
  let lo = from;
  let hi = to;
  while (hi - lo > 60) {
    const mid = Math.floor((lo + hi) / 2);
    if (f(mid) < level) hi = mid;
    else lo = mid;
  }
  return hi;
}
