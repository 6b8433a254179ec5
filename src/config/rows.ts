// One row of the settings table (src/config/): its shape, the value kinds rows read, ConfigError.
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../platform/errors.js';

/** A setting (variable, flag, or a file one names) that cannot be used: the message says which. */
export class ConfigError extends UserError {
  override name = 'ConfigError';
}

export const number = (name: string, fix: string) =>
  z.coerce.number({ error: `${name} must be a number: ${fix}` }).refine(Number.isFinite, {
    message: `${name} must be a finite number: ${fix}`,
  });

export const wholeNumber = (name: string, min: number, example: string) =>
  number(name, `set ${example}`).refine((v) => Number.isInteger(v) && v >= min, {
    message: `${name} must be a whole number of ${min} or more (${example})`,
  });

export const bool = (name: string) =>
  z.union([z.boolean(), z.string()]).transform((v, ctx) => {
    if (typeof v === 'boolean') return v;
    const s = v.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(s)) return true;
    if (['0', 'false', 'no', 'off'].includes(s)) return false;
    ctx.addIssue({ code: 'custom', message: `${name} must be true or false (got "${v}")` });
    return z.NEVER;
  });

export function defaultDataDir(env: NodeJS.ProcessEnv, home = os.homedir()): string {
  const xdg = env.XDG_DATA_HOME?.trim();
  return path.join(xdg ? xdg : path.join(home, '.local', 'share'), 'mnemo');
}

export type Flag = '--data-dir' | '--at' | '--host' | '--port' | '--namespace' | '--database-url';

/** What a derived default is made from. */
export interface DefaultContext {
  env: NodeJS.ProcessEnv;
  home: string | undefined;
  /** The settings read so far: the table is read in its order. */
  settings: Readonly<Record<string, unknown>>;
}

/** One row of the settings table; its key in SETTINGS is its key in Config. */
export interface Setting {
  variable: `MNEMO_${string}`;
  /** The command-line flag that wins over the variable; taken as given, blank or not. */
  flag?: Flag;
  /**
   * When the variable is unset or blank: a value, one made from the environment or the settings
   * read before (a function), or none (undefined: the setting stays unset).
   */
  default?: string | number | boolean | ((context: DefaultContext) => unknown);
  /** Turns the text given into what the schema checks; `name` is the variable or the flag. */
  read?: (text: string, name: string) => unknown;
  /** A set but blank variable is a value (which the schema refuses), not "unset". */
  blankIsValue?: true;
  /** Checks the value; each message names the variable and the fix. */
  schema: z.ZodType;
  /** What it is for, word for word as in the guide's Settings table (docs/settings.md). */
  meaning: string;
}

// A blank path stays blank (for the schema to refuse): path.resolve('') is the working folder.
export const resolvedPath = (text: string) => (text.trim() === '' ? '' : path.resolve(text.trim()));

/** A path setting that defaults to `name` in the data dir. */
export const inDataDir = (name: string) => ({
  default: ({ settings }: DefaultContext) => path.join(settings.dataDir as string, name),
  read: resolvedPath,
  schema: z.string().min(1),
});
