// The settings of the storage layer: the data dir, the namespace, PostgreSQL, the clock.
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_NAMESPACE, NAMESPACE_PATTERN } from '../storage/engine.js';
import { ConfigError, defaultDataDir, number, resolvedPath, type Setting } from './rows.js';

/** The furthest a Date goes either side of 1970 (100 million days), in seconds. */
const MAX_INSTANT = 8_640_000_000_000;

/** Epoch seconds or an ISO date; the clock is fixed there for the whole process. */
function parseInstant(value: string | number, name = 'MNEMO_NOW'): number {
  if (typeof value === 'number') return Math.floor(value);
  const s = value.trim();
  // 20260301 reads as a date, not as epoch seconds in 1970.
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (compact) return parseInstant(`${compact[1]}-${compact[2]}-${compact[3]}`, name);
  if (/^-?\d+(\.\d+)?$/.test(s)) {
    const seconds = Math.floor(Number(s));
    if (Math.abs(seconds) > MAX_INSTANT) {
      throw new ConfigError(
        `${name} is out of range: epoch seconds go from -${MAX_INSTANT} to ${MAX_INSTANT}; set e.g. 1767225600 or 2026-01-01`,
      );
    }
    return seconds;
  }
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) {
    throw new ConfigError(
      `${name} must be epoch seconds or an ISO date such as 2026-12-01 or 2026-12-01T09:00:00Z (got "${value}")`,
    );
  }
  return Math.floor(ms / 1000);
}

/** Where the memories live and at which clock: read first, as the later defaults use dataDir. */
export const STORAGE = {
  dataDir: {
    variable: 'MNEMO_DATA_DIR',
    flag: '--data-dir',
    default: ({ env, home }) => path.resolve(defaultDataDir(env, home)),
    read: resolvedPath,
    schema: z.string().min(1, 'MNEMO_DATA_DIR must not be empty: set a folder path or unset it'),
    meaning: 'where the JSONL files live (folder 0700, files 0600)',
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
} satisfies Record<string, Setting>;
