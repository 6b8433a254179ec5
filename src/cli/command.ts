import { parseArgs } from 'node:util';
import type { Config } from '../config/index.js';
import { UserError } from '../platform/errors.js';
import type { ProcessSignals } from './signals.js';

/** A mistake in how mnemo was called: main prints it with a pointer to --help, exit 2. */
export class UsageError extends UserError {
  override name = 'UsageError';
}

/** The flags and words of a command line; an unknown flag or a missing value is a UsageError. */
export function parseCommandLine(argv: string[]) {
  try {
    return parseFlags(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      namespace: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
      host: { type: 'string' },
      tunnel: { type: 'boolean' },
      oauth: { type: 'boolean' },
      port: { type: 'string' },
      at: { type: 'string' },
      apply: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      force: { type: 'boolean' },
      archive: { type: 'boolean' },
      limit: { type: 'string' },
      'top-k': { type: 'string' },
      tags: { type: 'string' },
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

export type Flags = ReturnType<typeof parseCommandLine>['values'];

/** What each command is given by main. */
export interface CommandContext {
  config: Config;
  /** The words after the command's name. */
  args: string[];
  flags: Flags;
  /** Writes one line to stdout. */
  out(line: string): void;
  /** stdout itself, for a command that streams a large output (export). */
  stdout: NodeJS.WritableStream;
  /** Where progress goes, off stdout. */
  stderr: NodeJS.WritableStream;
  /** The process's stop signals, for the commands that serve until asked to stop. */
  signals?: ProcessSignals | undefined;
  /** The environment the settings were read from: serve passes a few of it to cloudflared. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Runs one command; resolves to the exit code. Errors are main's to report. */
export type Command = (context: CommandContext) => Promise<number>;

export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number of 1 or more (got "${value}")`);
  return n;
}

/** True for --apply; a dry run by default or with --dry-run. */
export function applyFlag(flags: Flags): boolean {
  if (flags.apply && flags['dry-run']) {
    throw new UsageError('--apply and --dry-run contradict each other: pick one');
  }
  return flags.apply === true;
}
