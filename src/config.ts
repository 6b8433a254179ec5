import path from 'node:path';
import { z } from 'zod';
import { DECAY_MODELS } from './decay/index.js';
import { UserError } from './platform/errors.js';
import { trimEndChar } from './platform/linear-text.js';
import { EMBEDDINGS_SETTINGS } from './search/embeddings.js';
import {
  bool,
  type DefaultContext,
  defaultDataDir,
  type Flag,
  inDataDir,
  number,
  resolvedPath,
  type Setting,
  wholeNumber,
} from './setting.js';
import { DEFAULT_NAMESPACE, NAMESPACE_PATTERN } from './storage/engine.js';
import { isFolderName, normalizeFolderName } from './vault/paths.js';

/** Epoch seconds or an ISO date; the clock is fixed there for the whole process. */
function parseInstant(value: string | number, name = 'MNEMO_NOW'): number {
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

/** The flags that win over a variable, as ConfigSources takes them (`--data-dir` as dataDir). */
export interface ConfigFlags {
  dataDir?: string | undefined;
  at?: string | undefined;
  host?: string | undefined;
  port?: string | undefined;
  namespace?: string | undefined;
  databaseUrl?: string | undefined;
}

/**
 * Every setting in one table, from which the schema and the loader are derived. Values come from
 * the environment (MNEMO_*) and CLI flags; the CLI's main is the only caller, and src/cli.ts the
 * only reader of process.env. The guide's Settings table (docs/settings.md) lists the same rows (tested).
 */
export const SETTINGS = {
  dataDir: {
    variable: 'MNEMO_DATA_DIR',
    flag: '--data-dir',
    default: ({ env, home }) => path.resolve(defaultDataDir(env, home)),
    read: resolvedPath,
    schema: z.string().min(1, 'MNEMO_DATA_DIR must not be empty: set a folder path or unset it'),
    meaning: 'where the JSONL files live (folder 0700, files 0600)',
  },
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
  now: {
    variable: 'MNEMO_NOW',
    flag: '--at',
    read: (text, name) => (text.trim() === '' ? undefined : parseInstant(text, name)),
    schema: z.number().int().optional(),
    meaning: 'fix the clock: epoch seconds or an ISO date',
  },
  namespace: {
    variable: 'MNEMO_NAMESPACE',
    flag: '--namespace',
    default: DEFAULT_NAMESPACE,
    read: (text) => text.trim(),
    schema: z.string().regex(NAMESPACE_PATTERN, {
      message:
        'MNEMO_NAMESPACE must be 1 to 64 of a-z, 0-9, _ and -, e.g. work; unset it for default',
    }),
    meaning:
      'the namespace stdio and the commands read and write (`mnemo serve`: the token decides)',
  },
  databaseUrl: {
    variable: 'MNEMO_DATABASE_URL',
    flag: '--database-url',
    read: (text) => (text.trim() === '' ? undefined : text.trim()),
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, {
        message:
          'MNEMO_DATABASE_URL must start with postgres://, e.g. postgres://mnemo@127.0.0.1:5432/mnemo; unset it to keep the memories in the data dir',
      })
      .optional(),
    meaning:
      'keep the memories in PostgreSQL (`postgres://USER@HOST:PORT/DB`) rather than in the data dir',
  },
  cacheMb: {
    variable: 'MNEMO_CACHE_MB',
    schema: number('MNEMO_CACHE_MB', 'set e.g. 512')
      .refine((v) => v > 0, { message: 'MNEMO_CACHE_MB must be more than 0, e.g. 512' })
      .optional(),
    meaning:
      'with MNEMO_DATABASE_URL, the memory a `mnemo serve` replica gives the namespaces it holds (MB); beyond it the least recently used are let go (unset: a quarter of the RAM, 256 to 4096)',
  },
  httpHost: {
    variable: 'MNEMO_HTTP_HOST',
    flag: '--host',
    default: '127.0.0.1',
    schema: z.string().min(1, 'MNEMO_HTTP_HOST must not be empty: e.g. 127.0.0.1'),
    meaning: '`mnemo serve` address; a non-loopback one needs a token',
  },
  httpPort: {
    variable: 'MNEMO_HTTP_PORT',
    flag: '--port',
    default: 7744,
    schema: number('MNEMO_HTTP_PORT', 'set e.g. 7744').refine(
      (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
      { message: 'MNEMO_HTTP_PORT must be a port number from 0 to 65535, e.g. 7744' },
    ),
    meaning: '`mnemo serve` port (0 picks a free one)',
  },
  authToken: {
    variable: 'MNEMO_AUTH_TOKEN',
    // Set but blank must not mean "no auth": it is refused, not taken as unset.
    blankIsValue: true,
    schema: z
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
    meaning: 'bearer token for `/mcp` (16+ characters; set but blank is refused)',
  },
  tokensFile: {
    variable: 'MNEMO_TOKENS',
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning: 'a token file: which namespaces each bearer token of `/mcp` may use',
  },
  allowedHosts: {
    variable: 'MNEMO_ALLOWED_HOSTS',
    default: () => [],
    read: (text) =>
      text
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    schema: z.array(z.string()),
    meaning: 'extra Host names, comma-separated, `*.example.com` wildcards',
  },
  httpBodyLimit: {
    variable: 'MNEMO_HTTP_BODY_LIMIT',
    default: '1mb',
    schema: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'MNEMO_HTTP_BODY_LIMIT must be a size such as 1mb or 512kb'),
    meaning: 'largest request body (413 past it)',
  },
  gatewayConfig: {
    variable: 'MNEMO_GATEWAY_CONFIG',
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning: 'upstream MCP servers, `{"mcpServers": {...}}`',
  },
  rateLimitPerMinute: {
    variable: 'MNEMO_RATE_LIMIT',
    default: 600,
    schema: number('MNEMO_RATE_LIMIT', 'set calls a minute, e.g. 600').refine(
      (v) => Number.isInteger(v) && v >= 0,
      {
        message:
          'MNEMO_RATE_LIMIT must be a whole number of calls a minute (0 turns it off), e.g. 600',
      },
    ),
    meaning:
      'calls a minute per verified token on `/mcp` routes, per client address without one (0: no limit)',
  },
  publicUrl: {
    variable: 'MNEMO_PUBLIC_URL',
    read: (text) => trimEndChar(text.trim(), '/'),
    schema: z
      .url({
        protocol: /^https?$/,
        error: 'MNEMO_PUBLIC_URL must be an http(s) URL, e.g. https://name.trycloudflare.com',
      })
      .optional(),
    meaning: 'the public URL (tunnel); when set, gateway.json is written',
  },
  oauth: {
    variable: 'MNEMO_OAUTH',
    default: false,
    schema: bool('MNEMO_OAUTH'),
    meaning:
      '`mnemo serve` also answers OAuth 2.1 clients (claude.ai, ChatGPT) at `/connect/mcp` (also `--oauth`); needs a public URL and a token',
  },
  gatewayManifest: {
    variable: 'MNEMO_GATEWAY_MANIFEST',
    ...inDataDir('gateway.json'),
    meaning: 'where gateway.json goes',
  },
  gatewayTimeoutMs: {
    variable: 'MNEMO_GATEWAY_TIMEOUT_MS',
    default: 600_000,
    schema: number('MNEMO_GATEWAY_TIMEOUT_MS', 'set e.g. 600000').refine((v) => v >= 1000, {
      message:
        'MNEMO_GATEWAY_TIMEOUT_MS must be at least 1000 milliseconds, e.g. 600000 (10 minutes)',
    }),
    meaning: 'how long a proxied call may run (progress restarts the clock)',
  },
  cloudflared: {
    variable: 'MNEMO_CLOUDFLARED',
    default: 'cloudflared',
    schema: z.string().min(1, 'MNEMO_CLOUDFLARED must not be empty: a path to cloudflared'),
    meaning: 'the cloudflared binary for `mnemo serve --tunnel`',
  },
  tunnelRestartMs: {
    variable: 'MNEMO_TUNNEL_RESTART_MS',
    default: 1000,
    schema: number('MNEMO_TUNNEL_RESTART_MS', 'set e.g. 1000').refine((v) => v >= 10, {
      message: 'MNEMO_TUNNEL_RESTART_MS must be 10 or more milliseconds, e.g. 1000',
    }),
    meaning: 'first delay before restarting cloudflared (doubles to 30 s)',
  },
  vaultDir: {
    variable: 'MNEMO_VAULT_DIR',
    // Replicas on PostgreSQL share memories, not a disk: only the one told a vault writes notes.
    default: ({ settings }: DefaultContext) =>
      settings.databaseUrl ? undefined : path.join(settings.dataDir as string, 'vault'),
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning:
      'the Obsidian vault promoted memories go to (made from `vault-template/` if missing or empty); with MNEMO_DATABASE_URL, none unless set',
  },
  vaultFolder: {
    variable: 'MNEMO_VAULT_FOLDER',
    default: 'mnemo',
    schema: z
      .string()
      .min(1, 'MNEMO_VAULT_FOLDER must not be empty: e.g. mnemo')
      .refine(isFolderName, {
        message:
          'MNEMO_VAULT_FOLDER must be a folder name inside the vault: names joined by /, without . or .. parts, a leading dot, a backslash, : or a control character, e.g. mnemo or notes/mnemo',
      })
      .transform(normalizeFolderName),
    meaning: 'the folder of the vault mnemo writes its notes in (the only one)',
  },
  anchorFile: {
    variable: 'MNEMO_ANCHOR_FILE',
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning:
      "the default namespace's anchor: a Markdown file the person owns, first in every context pack (unset: `anchor.md` in the vault root; another namespace's is `anchor.md` in its own folder)",
  },
  embeddings: {
    variable: 'MNEMO_EMBEDDINGS',
    default: 'auto',
    schema: z.enum(EMBEDDINGS_SETTINGS, {
      error:
        'MNEMO_EMBEDDINGS must be one of auto, minilm, static, off: auto uses all-MiniLM-L6-v2 when it loads, else the bundled static model',
    }),
    meaning:
      '`auto` (all-MiniLM-L6-v2 when `@huggingface/transformers` is installed and the model loads, else the shipped static model), `minilm`, `static` or `off` (words only)',
  },
  // Unset by default: each model has its own (a cosine means different things to different models).
  hybridWeight: {
    variable: 'MNEMO_HYBRID_WEIGHT',
    schema: number('MNEMO_HYBRID_WEIGHT', 'set e.g. 0.1')
      .refine((v) => v >= 0 && v <= 1, {
        message:
          'MNEMO_HYBRID_WEIGHT must be between 0 (words only) and 1 (meaning only), e.g. 0.1',
      })
      .optional(),
    meaning: 'share of relevance that comes from meaning, 0 (words only) to 1 (meaning only)',
  },
  similarityThreshold: {
    variable: 'MNEMO_SIMILARITY_THRESHOLD',
    schema: number('MNEMO_SIMILARITY_THRESHOLD', 'set a cosine, e.g. 0.5')
      .refine((v) => v > -1 && v < 1, {
        message: 'MNEMO_SIMILARITY_THRESHOLD must be a cosine between -1 and 1, e.g. 0.5',
      })
      .optional(),
    meaning: 'cosine from which a memory matches the query by meaning',
  },
  nearDuplicateThreshold: {
    variable: 'MNEMO_NEAR_DUPLICATE_THRESHOLD',
    schema: number('MNEMO_NEAR_DUPLICATE_THRESHOLD', 'set a cosine, e.g. 0.9')
      .refine((v) => v > 0 && v <= 1, {
        message: 'MNEMO_NEAR_DUPLICATE_THRESHOLD must be a cosine above 0 and at most 1, e.g. 0.9',
      })
      .optional(),
    meaning: 'cosine from which save_memory lists a memory under `similar_to`',
  },
  logLevel: {
    variable: 'MNEMO_LOG_LEVEL',
    default: 'info',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'MNEMO_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    }),
    meaning: 'pino level; logs always go to stderr',
  },
} satisfies Record<string, Setting>;

type Table = typeof SETTINGS;

function schemaShape(table: Table): { [K in keyof Table]: Table[K]['schema'] } {
  return Object.fromEntries(Object.entries(table).map(([key, s]) => [key, s.schema])) as {
    [K in keyof Table]: Table[K]['schema'];
  };
}

const configSchema = z
  .object(schemaShape(SETTINGS))
  .refine((c) => c.dangerZoneMin < c.dangerZoneMax, {
    message: 'MNEMO_DANGER_ZONE_MIN must be below MNEMO_DANGER_ZONE_MAX (defaults 0.15 and 0.35)',
  });

export type Config = z.infer<typeof configSchema>;

export interface ConfigSources {
  env: NodeJS.ProcessEnv;
  /** Flags win over the environment. */
  flags?: ConfigFlags;
  home?: string;
}

/** `--data-dir` → dataDir: the key of a flag in ConfigFlags. */
const flagKey = (flag: Flag) =>
  flag.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as keyof ConfigFlags;

/** The text a setting is given, and its source: the flag as it is, else the variable if not blank. */
function given(
  row: Setting,
  env: NodeJS.ProcessEnv,
  flags: ConfigFlags,
): { text: string; name: string } | undefined {
  const flagged = row.flag === undefined ? undefined : flags[flagKey(row.flag)];
  if (row.flag !== undefined && flagged !== undefined) return { text: flagged, name: row.flag };
  const text = env[row.variable];
  if (text === undefined || (!row.blankIsValue && text.trim() === '')) return undefined;
  return { text, name: row.variable };
}

/** Reads every setting once; throws ConfigError naming the variable and the fix. */
export function loadConfig({ env, flags = {}, home }: ConfigSources): Config {
  const settings: Record<string, unknown> = {};
  /** The flag each setting given by one came from: its messages name the flag. */
  const flagged = new Map<string, { variable: string; flag: string }>();
  for (const [key, row] of Object.entries(SETTINGS) as [string, Setting][]) {
    const from = given(row, env, flags);
    if (from && from.name !== row.variable)
      flagged.set(key, { variable: row.variable, flag: from.name });
    let value: unknown;
    if (from) value = row.read ? row.read(from.text, from.name) : from.text;
    else if (typeof row.default === 'function') value = row.default({ env, home, settings });
    else value = row.default;
    if (value !== undefined) settings[key] = value;
  }
  const parsed = configSchema.safeParse(settings);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues
        .map((issue) => {
          const from = flagged.get(String(issue.path[0]));
          return from ? issue.message.replaceAll(from.variable, from.flag) : issue.message;
        })
        .join('\n'),
    );
  }
  return parsed.data;
}
