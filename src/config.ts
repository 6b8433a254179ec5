import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DECAY_MODELS } from './decay/index.js';
import { UserError } from './platform/errors.js';
import { EMBEDDINGS_SETTINGS } from './search/embeddings.js';

/**
 * Every setting in one schema. Values come from the environment (MNEMO_*) and CLI flags;
 * the CLI's main is the only caller, and src/cli.ts the only reader of process.env.
 */

const number = (name: string, fix: string) =>
  z.coerce.number({ error: `${name} must be a number: ${fix}` }).refine(Number.isFinite, {
    message: `${name} must be a finite number: ${fix}`,
  });

const wholeNumber = (name: string, min: number, example: string) =>
  number(name, `set ${example}`).refine((v) => Number.isInteger(v) && v >= min, {
    message: `${name} must be a whole number of ${min} or more (${example})`,
  });

const bool = (name: string) =>
  z.union([z.boolean(), z.string()]).transform((v, ctx) => {
    if (typeof v === 'boolean') return v;
    const s = v.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(s)) return true;
    if (['0', 'false', 'no', 'off'].includes(s)) return false;
    ctx.addIssue({ code: 'custom', message: `${name} must be true or false (got "${v}")` });
    return z.NEVER;
  });

/** Epoch seconds or an ISO date; the clock is fixed there for the whole process. */
export function parseInstant(value: string | number, name = 'MNEMO_NOW'): number {
  if (typeof value === 'number') return Math.floor(value);
  const s = value.trim();
  // 20260301 reads as a date, not as epoch seconds in 1970.
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (compact) return parseInstant(`${compact[1]}-${compact[2]}-${compact[3]}`, name);
  if (/^-?\d+(\.\d+)?$/.test(s)) return Math.floor(Number(s));
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) {
    throw new ConfigError(
      `${name} must be epoch seconds or an ISO date such as 2026-12-01 or 2026-12-01T09:00:00Z (got "${value}")`,
    );
  }
  return Math.floor(ms / 1000);
}

/** A setting (variable, flag, or a file one names) that cannot be used: the message says which. */
export class ConfigError extends UserError {
  override name = 'ConfigError';
}

export const configSchema = z
  .object({
    dataDir: z.string().min(1, 'MNEMO_DATA_DIR must not be empty: set a folder path or unset it'),
    decayModel: z.enum(DECAY_MODELS, {
      error: (issue) =>
        `MNEMO_DECAY_MODEL must be one of ${DECAY_MODELS.join(', ')} (got "${String(issue.input)}"): set one of them or unset it for power_law`,
    }),
    halfLifeDays: number('MNEMO_HALFLIFE_DAYS', 'set days, e.g. 3').refine((v) => v > 0, {
      message: 'MNEMO_HALFLIFE_DAYS must be above 0, e.g. 3',
    }),
    beta: number('MNEMO_DECAY_BETA', 'set e.g. 0.6').refine((v) => v >= 0 && v <= 2, {
      message: 'MNEMO_DECAY_BETA must be between 0 and 2, e.g. 0.6',
    }),
    forgetThreshold: number('MNEMO_FORGET_THRESHOLD', 'set e.g. 0.05').refine((v) => v >= 0, {
      message: 'MNEMO_FORGET_THRESHOLD must be 0 or more, e.g. 0.05',
    }),
    promoteThreshold: number('MNEMO_PROMOTE_THRESHOLD', 'set e.g. 0.65'),
    promoteMinUses: wholeNumber(
      'MNEMO_PROMOTE_MIN_USES',
      1,
      'e.g. 2; a memory never used never promotes',
    ),
    promoteUseCount: wholeNumber('MNEMO_PROMOTE_USE_COUNT', 1, 'e.g. 5'),
    promoteWindowDays: number('MNEMO_PROMOTE_WINDOW_DAYS', 'set e.g. 14').refine((v) => v >= 0, {
      message: 'MNEMO_PROMOTE_WINDOW_DAYS must be 0 or more days, e.g. 14',
    }),
    dangerZoneMin: number('MNEMO_DANGER_ZONE_MIN', 'set e.g. 0.15'),
    dangerZoneMax: number('MNEMO_DANGER_ZONE_MAX', 'set e.g. 0.35'),
    reviewBlendRatio: number('MNEMO_REVIEW_BLEND_RATIO', 'set e.g. 0.3').refine(
      (v) => v >= 0 && v <= 0.5,
      { message: 'MNEMO_REVIEW_BLEND_RATIO must be between 0 and 0.5, e.g. 0.3' },
    ),
    searchDecayWeight: number('MNEMO_SEARCH_DECAY_WEIGHT', 'set e.g. 0.3').refine(
      (v) => v >= 0 && v <= 1,
      { message: 'MNEMO_SEARCH_DECAY_WEIGHT must be between 0 and 1, e.g. 0.3' },
    ),
    autoReinforce: bool('MNEMO_AUTO_REINFORCE'),
    now: z.number().int().optional(),
    httpHost: z.string().min(1, 'MNEMO_HTTP_HOST must not be empty: e.g. 127.0.0.1'),
    httpPort: number('MNEMO_HTTP_PORT', 'set e.g. 7744').refine(
      (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
      { message: 'MNEMO_HTTP_PORT must be a port number from 0 to 65535, e.g. 7744' },
    ),
    // Set but blank must not mean "no auth": it is refused, not taken as unset.
    authToken: z
      .string()
      .trim()
      .min(1, {
        error:
          'MNEMO_AUTH_TOKEN is set but blank (empty or only white space), which would leave /mcp without auth: set it to 16 or more random characters (e.g. openssl rand -hex 32), or unset it',
        abort: true,
      })
      .min(
        16,
        'MNEMO_AUTH_TOKEN is too short: use at least 16 random characters (e.g. openssl rand -hex 32)',
      )
      .optional(),
    allowedHosts: z.array(z.string()),
    httpBodyLimit: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'MNEMO_HTTP_BODY_LIMIT must be a size such as 1mb or 512kb'),
    gatewayConfig: z.string().min(1).optional(),
    rateLimitPerMinute: number('MNEMO_RATE_LIMIT', 'set calls a minute, e.g. 600').refine(
      (v) => Number.isInteger(v) && v >= 0,
      {
        message:
          'MNEMO_RATE_LIMIT must be a whole number of calls a minute (0 turns it off), e.g. 600',
      },
    ),
    publicUrl: z
      .url({
        protocol: /^https?$/,
        error: 'MNEMO_PUBLIC_URL must be an http(s) URL, e.g. https://name.trycloudflare.com',
      })
      .optional(),
    gatewayManifest: z.string().min(1),
    gatewayTimeoutMs: number('MNEMO_GATEWAY_TIMEOUT_MS', 'set e.g. 600000').refine(
      (v) => v >= 1000,
      {
        message:
          'MNEMO_GATEWAY_TIMEOUT_MS must be at least 1000 milliseconds, e.g. 600000 (10 minutes)',
      },
    ),
    cloudflared: z.string().min(1, 'MNEMO_CLOUDFLARED must not be empty: a path to cloudflared'),
    tunnelRestartMs: number('MNEMO_TUNNEL_RESTART_MS', 'set e.g. 1000').refine((v) => v >= 10, {
      message: 'MNEMO_TUNNEL_RESTART_MS must be 10 or more milliseconds, e.g. 1000',
    }),
    vaultDir: z.string().min(1),
    vaultFolder: z
      .string()
      .min(1, 'MNEMO_VAULT_FOLDER must not be empty: e.g. mnemo')
      .refine(
        (f) => {
          const parts = f.split(/[\\/]+/).filter(Boolean);
          return (
            parts.length > 0 &&
            !path.isAbsolute(f) &&
            !parts.some((p) => p === '.' || p === '..' || p.startsWith('.'))
          );
        },
        {
          message:
            'MNEMO_VAULT_FOLDER must be a folder name inside the vault, without .. or a leading dot, e.g. mnemo',
        },
      ),
    embeddings: z.enum(EMBEDDINGS_SETTINGS, {
      error:
        'MNEMO_EMBEDDINGS must be one of auto, minilm, static, off: auto uses all-MiniLM-L6-v2 when it loads, else the bundled static model',
    }),
    hybridWeight: number('MNEMO_HYBRID_WEIGHT', 'set e.g. 0.1')
      .refine((v) => v >= 0 && v <= 1, {
        message:
          'MNEMO_HYBRID_WEIGHT must be between 0 (words only) and 1 (meaning only), e.g. 0.1',
      })
      .optional(),
    similarityThreshold: number('MNEMO_SIMILARITY_THRESHOLD', 'set a cosine, e.g. 0.5')
      .refine((v) => v > -1 && v < 1, {
        message: 'MNEMO_SIMILARITY_THRESHOLD must be a cosine between -1 and 1, e.g. 0.5',
      })
      .optional(),
    nearDuplicateThreshold: number('MNEMO_NEAR_DUPLICATE_THRESHOLD', 'set a cosine, e.g. 0.9')
      .refine((v) => v > 0 && v <= 1, {
        message: 'MNEMO_NEAR_DUPLICATE_THRESHOLD must be a cosine above 0 and at most 1, e.g. 0.9',
      })
      .optional(),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'MNEMO_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    }),
  })
  .refine((c) => c.dangerZoneMin < c.dangerZoneMax, {
    message: 'MNEMO_DANGER_ZONE_MIN must be below MNEMO_DANGER_ZONE_MAX (defaults 0.15 and 0.35)',
  });

export type Config = z.infer<typeof configSchema>;

export const ENV_VARS: Record<
  Exclude<
    keyof Config,
    | 'dataDir'
    | 'now'
    | 'authToken'
    | 'allowedHosts'
    | 'gatewayConfig'
    | 'publicUrl'
    | 'gatewayManifest'
    | 'vaultDir'
  >,
  string
> = {
  decayModel: 'MNEMO_DECAY_MODEL',
  halfLifeDays: 'MNEMO_HALFLIFE_DAYS',
  beta: 'MNEMO_DECAY_BETA',
  forgetThreshold: 'MNEMO_FORGET_THRESHOLD',
  promoteThreshold: 'MNEMO_PROMOTE_THRESHOLD',
  promoteMinUses: 'MNEMO_PROMOTE_MIN_USES',
  promoteUseCount: 'MNEMO_PROMOTE_USE_COUNT',
  promoteWindowDays: 'MNEMO_PROMOTE_WINDOW_DAYS',
  dangerZoneMin: 'MNEMO_DANGER_ZONE_MIN',
  dangerZoneMax: 'MNEMO_DANGER_ZONE_MAX',
  reviewBlendRatio: 'MNEMO_REVIEW_BLEND_RATIO',
  searchDecayWeight: 'MNEMO_SEARCH_DECAY_WEIGHT',
  autoReinforce: 'MNEMO_AUTO_REINFORCE',
  logLevel: 'MNEMO_LOG_LEVEL',
  httpHost: 'MNEMO_HTTP_HOST',
  httpPort: 'MNEMO_HTTP_PORT',
  httpBodyLimit: 'MNEMO_HTTP_BODY_LIMIT',
  rateLimitPerMinute: 'MNEMO_RATE_LIMIT',
  gatewayTimeoutMs: 'MNEMO_GATEWAY_TIMEOUT_MS',
  cloudflared: 'MNEMO_CLOUDFLARED',
  tunnelRestartMs: 'MNEMO_TUNNEL_RESTART_MS',
  vaultFolder: 'MNEMO_VAULT_FOLDER',
  embeddings: 'MNEMO_EMBEDDINGS',
  hybridWeight: 'MNEMO_HYBRID_WEIGHT',
  similarityThreshold: 'MNEMO_SIMILARITY_THRESHOLD',
  nearDuplicateThreshold: 'MNEMO_NEAR_DUPLICATE_THRESHOLD',
};

export const DEFAULTS = {
  decayModel: 'power_law',
  halfLifeDays: 3,
  beta: 0.6,
  forgetThreshold: 0.05,
  promoteThreshold: 0.65,
  promoteMinUses: 2,
  promoteUseCount: 5,
  promoteWindowDays: 14,
  dangerZoneMin: 0.15,
  dangerZoneMax: 0.35,
  reviewBlendRatio: 0.3,
  searchDecayWeight: 0.3,
  autoReinforce: true,
  logLevel: 'info',
  httpHost: '127.0.0.1',
  httpPort: 7744,
  httpBodyLimit: '1mb',
  rateLimitPerMinute: 600,
  gatewayTimeoutMs: 600_000,
  cloudflared: 'cloudflared',
  tunnelRestartMs: 1000,
  vaultFolder: 'mnemo',
  embeddings: 'auto',
  /** Unset: each model's own (a cosine means different things to different models). */
  hybridWeight: undefined,
  similarityThreshold: undefined,
  nearDuplicateThreshold: undefined,
} as const;

export function defaultDataDir(env: NodeJS.ProcessEnv, home = os.homedir()): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  return path.join(xdg ? xdg : path.join(home, '.local', 'share'), 'mnemo');
}

export interface ConfigSources {
  env: NodeJS.ProcessEnv;
  /** Flags win over the environment. */
  flags?: {
    dataDir?: string | undefined;
    at?: string | undefined;
    host?: string | undefined;
    port?: string | undefined;
    vaultDir?: string | undefined;
  };
  home?: string;
}

/** Reads every setting once; throws ConfigError naming the variable and the fix. */
export function loadConfig({ env, flags = {}, home }: ConfigSources): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_VARS)) {
    const value = env[name];
    raw[key] =
      value === undefined || value.trim() === '' ? DEFAULTS[key as keyof typeof DEFAULTS] : value;
  }
  raw.dataDir = path.resolve(
    flags.dataDir ?? (env.MNEMO_DATA_DIR?.trim() || defaultDataDir(env, home)),
  );
  if (flags.host !== undefined) raw.httpHost = flags.host;
  if (flags.port !== undefined) raw.httpPort = flags.port;
  if (env.MNEMO_AUTH_TOKEN !== undefined) raw.authToken = env.MNEMO_AUTH_TOKEN;
  raw.allowedHosts = (env.MNEMO_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const publicUrl = env.MNEMO_PUBLIC_URL?.trim();
  if (publicUrl) raw.publicUrl = publicUrl.replace(/\/+$/, '');
  raw.gatewayManifest = path.resolve(
    env.MNEMO_GATEWAY_MANIFEST?.trim() || path.join(raw.dataDir as string, 'gateway.json'),
  );
  raw.vaultDir = path.resolve(
    flags.vaultDir ?? (env.MNEMO_VAULT_DIR?.trim() || path.join(raw.dataDir as string, 'vault')),
  );
  const gatewayConfig = env.MNEMO_GATEWAY_CONFIG?.trim();
  if (gatewayConfig) raw.gatewayConfig = path.resolve(gatewayConfig);
  const at = flags.at ?? env.MNEMO_NOW;
  if (at !== undefined && at.trim() !== '') {
    raw.now = parseInstant(at, flags.at !== undefined ? '--at' : 'MNEMO_NOW');
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => i.message).join('\n'));
  }
  return parsed.data;
}
