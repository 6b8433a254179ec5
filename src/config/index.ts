// The settings table (its groups, in the order they are read) and loadConfig, which reads it once.
import { z } from 'zod';
import { DECAY } from './decay.js';
import { GATEWAY } from './gateway.js';
import { HTTP } from './http.js';
import { LOGGING } from './logging.js';
import { ConfigError, type Flag, type Setting } from './rows.js';
import { SEARCH } from './search.js';
import { STORAGE } from './storage.js';
import { VAULT } from './vault.js';

export { ConfigError };

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
 * Every setting in one table, from which the schema and the loader are derived; each group is in
 * the file of the layer that reads it, and read in this order (a default may use one read before).
 * Values come from the environment (MNEMO_*) and CLI flags; the CLI's main is the only caller, and
 * src/cli.ts the only reader of process.env. The guide's Settings table (docs/settings.md) lists
 * the same rows (tested).
 */
export const SETTINGS = {
  ...STORAGE,
  ...DECAY,
  ...SEARCH,
  ...HTTP,
  ...GATEWAY,
  ...VAULT,
  ...LOGGING,
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
