// The settings of the memory's dynamics: decay, forgetting, promotion, review, reinforcement.
import { z } from 'zod';
import { DECAY_MODELS } from '../decay/index.js';
import { bool, number, type Setting, wholeNumber } from './rows.js';

/** How a memory's score falls and rises, and what the use cases do at which score. */
export const DECAY = {
  decayModel: {
    variable: 'MNEMO_DECAY_MODEL',
    default: 'power_law',
    schema: z.enum(DECAY_MODELS, {
      error: (issue) =>
        `MNEMO_DECAY_MODEL must be one of ${DECAY_MODELS.join(', ')} (got "${String(issue.input)}"): set one of them or unset it for power_law`,
    }),
    meaning: '`power_law`, `exponential` or `two_component`',
  },
  halfLifeDays: {
    variable: 'MNEMO_HALFLIFE_DAYS',
    default: 3,
    schema: number('MNEMO_HALFLIFE_DAYS', 'set days, e.g. 3').refine((v) => v > 0, {
      message: 'MNEMO_HALFLIFE_DAYS must be above 0, e.g. 3',
    }),
    meaning: 'half-life of an unused memory (power_law, exponential)',
  },
  beta: {
    variable: 'MNEMO_DECAY_BETA',
    default: 0.6,
    schema: number('MNEMO_DECAY_BETA', 'set e.g. 0.6').refine((v) => v >= 0 && v <= 2, {
      message: 'MNEMO_DECAY_BETA must be between 0 and 2, e.g. 0.6',
    }),
    meaning: 'weight of use: `(use_count + 1)^beta`',
  },
  forgetThreshold: {
    variable: 'MNEMO_FORGET_THRESHOLD',
    default: 0.05,
    schema: number('MNEMO_FORGET_THRESHOLD', 'set e.g. 0.05').refine((v) => v >= 0, {
      message: 'MNEMO_FORGET_THRESHOLD must be 0 or more, e.g. 0.05',
    }),
    meaning: 'gc forgets active memories scoring below this',
  },
  promoteThreshold: {
    variable: 'MNEMO_PROMOTE_THRESHOLD',
    default: 0.65,
    schema: number('MNEMO_PROMOTE_THRESHOLD', 'set e.g. 0.65'),
    meaning: 'promotion: score at least this ...',
  },
  promoteMinUses: {
    variable: 'MNEMO_PROMOTE_MIN_USES',
    default: 2,
    schema: wholeNumber('MNEMO_PROMOTE_MIN_USES', 1, 'e.g. 2; a memory never used never promotes'),
    meaning: '... with at least this many uses (1 or more)',
  },
  promoteUseCount: {
    variable: 'MNEMO_PROMOTE_USE_COUNT',
    default: 5,
    schema: wholeNumber('MNEMO_PROMOTE_USE_COUNT', 1, 'e.g. 5'),
    meaning: 'or: this many uses ...',
  },
  promoteWindowDays: {
    variable: 'MNEMO_PROMOTE_WINDOW_DAYS',
    default: 14,
    schema: number('MNEMO_PROMOTE_WINDOW_DAYS', 'set e.g. 14').refine((v) => v >= 0, {
      message: 'MNEMO_PROMOTE_WINDOW_DAYS must be 0 or more days, e.g. 14',
    }),
    meaning: '... within this many days of creation',
  },
  dangerZoneMin: {
    variable: 'MNEMO_DANGER_ZONE_MIN',
    default: 0.15,
    schema: number('MNEMO_DANGER_ZONE_MIN', 'set e.g. 0.15'),
    meaning: 'review danger zone, lower score',
  },
  dangerZoneMax: {
    variable: 'MNEMO_DANGER_ZONE_MAX',
    default: 0.35,
    schema: number('MNEMO_DANGER_ZONE_MAX', 'set e.g. 0.35'),
    meaning: 'review danger zone, upper score',
  },
  reviewBlendRatio: {
    variable: 'MNEMO_REVIEW_BLEND_RATIO',
    default: 0.3,
    schema: number('MNEMO_REVIEW_BLEND_RATIO', 'set e.g. 0.3').refine((v) => v >= 0 && v <= 0.5, {
      message: 'MNEMO_REVIEW_BLEND_RATIO must be between 0 and 0.5, e.g. 0.3',
    }),
    meaning: 'at most this share of a search page goes to review candidates (0 to 0.5)',
  },
  searchDecayWeight: {
    variable: 'MNEMO_SEARCH_DECAY_WEIGHT',
    default: 0.3,
    schema: number('MNEMO_SEARCH_DECAY_WEIGHT', 'set e.g. 0.3').refine((v) => v >= 0 && v <= 1, {
      message: 'MNEMO_SEARCH_DECAY_WEIGHT must be between 0 and 1, e.g. 0.3',
    }),
    meaning: 'how much the decay score weighs in search ranking (0 to 1)',
  },
  autoReinforce: {
    variable: 'MNEMO_AUTO_REINFORCE',
    default: true,
    schema: bool('MNEMO_AUTO_REINFORCE'),
    meaning: 'observe_memory_usage reinforces (search never does)',
  },
} satisfies Record<string, Setting>;
