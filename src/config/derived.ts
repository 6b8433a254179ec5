// The nested settings the layers take, each made from a Config's flat fields in one place.
import type { DangerZone, DecayParams, PromotionParams } from '../decay/index.js';
import type { Config } from './index.js';

/** How a memory's score decays (MNEMO_DECAY_MODEL, MNEMO_HALFLIFE_DAYS, MNEMO_DECAY_BETA). */
export function decayParams(config: Config): DecayParams {
  return { model: config.decayModel, halfLifeDays: config.halfLifeDays, beta: config.beta };
}

/** The scores between which a memory is up for review (MNEMO_DANGER_ZONE_MIN/MAX). */
export function dangerZone(config: Config): DangerZone {
  return { min: config.dangerZoneMin, max: config.dangerZoneMax };
}

/** When a memory is promoted to the vault (MNEMO_PROMOTE_*). */
export function promotionParams(config: Config): PromotionParams {
  return {
    threshold: config.promoteThreshold,
    minUses: config.promoteMinUses,
    useCount: config.promoteUseCount,
    windowDays: config.promoteWindowDays,
  };
}

/** The use cases' settings (memory/context.ts's MemorySettings), retriever's included. */
export function memorySettings(config: Config) {
  return {
    decay: decayParams(config),
    dangerZone: dangerZone(config),
    promotion: promotionParams(config),
    forgetThreshold: config.forgetThreshold,
    reviewBlendRatio: config.reviewBlendRatio,
    searchDecayWeight: config.searchDecayWeight,
    autoReinforce: config.autoReinforce,
    hybridWeight: config.hybridWeight,
    similarityThreshold: config.similarityThreshold,
    nearDuplicateThreshold: config.nearDuplicateThreshold,
  };
}

/** What the web page's score curve is drawn with (ui/curve.ts's CurveSettings). */
export function curveSettings(config: Config) {
  return {
    decay: decayParams(config),
    dangerZone: dangerZone(config),
    forgetThreshold: config.forgetThreshold,
    promoteThreshold: config.promoteThreshold,
  };
}
