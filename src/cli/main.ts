import { loadConfig } from '../config/index.js';
import { UserError } from '../platform/errors.js';
import { VERSION } from '../version.js';
import { type Command, parseCommandLine, UsageError } from './command.js';
import { terminalText } from './format.js';
import type { ProcessSignals } from './signals.js';

const HELP = `mnemo ${VERSION}: memory for AI agents, served as MCP tools

Usage:
  mnemo stdio                 serve the memory tools over stdin/stdout (for Claude Desktop)
  mnemo serve [--host H] [--port P] [--tunnel] [--oauth]
                              serve them over streamable HTTP at POST /mcp (default
                              127.0.0.1:7744), behind MNEMO_AUTH_TOKEN; GET /health
  mnemo ui [--port P]         the web page to look at the memory, on loopback only; prints its
                              address (GET /ui on mnemo serve too)
  mnemo gc [--dry-run | --apply] [--archive] [--limit N] [--at DATE]
                              list the memories that have faded below the forget threshold;
                              a dry run unless --apply (forgotten memories stay recoverable)
  mnemo search QUERY [--top-k N] [--tags a,b]
                              search memories as search_memory does
  mnemo stats                 counts, score spread, review, gc and promotion candidates
  mnemo restore ID            bring back a memory that gc or delete forgot, or one archived
  mnemo promote [ID] [--apply] [--force] [--at DATE]
                              list the memories durable enough for the Obsidian vault and why
                              each qualifies; a dry run unless --apply writes their notes
  mnemo vault init [DIR]      make an Obsidian vault from the template (default the vault of
                              MNEMO_VAULT_DIR, else <data dir>/vault); an existing one is kept
  mnemo reindex [--all]       compute the embeddings that are missing (MNEMO_EMBEDDINGS) in
                              every namespace, with a progress bar; --all computes every one again
  mnemo db migrate            apply the pending migrations of mnemo's tables to the PostgreSQL
                              database of MNEMO_DATABASE_URL (mnemo applies them at start too)
  mnemo db status             the schema's version there, and the migrations still to apply
  mnemo tokens list           the OAuth grants (mnemo serve --oauth): client, namespaces,
                              created, expires, last used; no secret is shown
  mnemo tokens revoke ID      revoke one (ID or its first 8+ characters, from the list): its
                              tokens stop working at once
  mnemo migrate --from A --to B [--namespace NAME]
                              copy the memories of a data dir into PostgreSQL (A a folder, B a
                              postgres:// URL) or back (made if missing); safe to run again.
                              --namespace: the data dir's default namespace is NAME there
  mnemo import PATH --from server-memory|markdown|cortexgraph|mnemo [--dry-run]
                              bring memories in from another memory server's file or folder
                              (or a mnemo export); safe to run again: what is there is skipped
  mnemo export [--format mnemo|markdown|server-memory] [--out PATH]
                              write the namespace's memories out (default: mnemo's own JSONL,
                              to stdout); markdown: a note a memory into the folder --out

Options (every command):
  --data-dir DIR              data folder (default $MNEMO_DATA_DIR, else $XDG_DATA_HOME/mnemo,
                              else ~/.local/share/mnemo)
  --namespace NAME            the namespace to read and write (default $MNEMO_NAMESPACE, else
                              default); mnemo serve takes it from each request's token
  --database-url URL          keep the memories in PostgreSQL, not the data dir (default
                              $MNEMO_DATABASE_URL)
  --at DATE                   run as if it were DATE (ISO date or epoch seconds), e.g. to see
                              what gc will forget by then
  --json                      print JSON instead of a table
  -h, --help                  this help
  -v, --version               the version

Settings come from the environment; see docs/settings.md for every MNEMO_* variable.
`;

/** A command whose module (and what it needs: express, pg) is loaded only when it runs. */
const lazy =
  (load: () => Promise<Command>): Command =>
  async (context) =>
    (await load())(context);

/** The flags every command takes. */
const COMMON_FLAGS = ['data-dir', 'at', 'json', 'help', 'version'];

/**
 * Each command, the flags it takes beside the common ones, and how many words (ID, DIR).
 * `--namespace` goes to the commands that read or write memories; serve takes it from each
 * request's token, vault and reindex act on every namespace. `--database-url` goes to those that
 * open the memory, and to db; migrate takes its URL as --from or --to.
 */
const COMMANDS = new Map<string, { run: Command; flags: string[]; words: number }>([
  [
    'stdio',
    {
      run: lazy(() => import('./commands/stdio.js').then((m) => m.runStdio)),
      flags: ['namespace', 'database-url'],
      words: 0,
    },
  ],
  [
    'serve',
    {
      run: lazy(() => import('./commands/serve.js').then((m) => m.runServe)),
      flags: ['host', 'port', 'tunnel', 'oauth', 'database-url'],
      words: 0,
    },
  ],
  [
    'ui',
    {
      run: lazy(() => import('./commands/ui.js').then((m) => m.runUi)),
      flags: ['port', 'database-url'],
      words: 0,
    },
  ],
  [
    'gc',
    {
      run: lazy(() => import('./commands/gc.js').then((m) => m.runGc)),
      flags: ['namespace', 'database-url', 'dry-run', 'apply', 'archive', 'limit'],
      words: 0,
    },
  ],
  [
    'search',
    {
      run: lazy(() => import('./commands/search.js').then((m) => m.runSearch)),
      flags: ['namespace', 'database-url', 'top-k', 'tags'],
      words: Number.POSITIVE_INFINITY,
    },
  ],
  [
    'stats',
    {
      run: lazy(() => import('./commands/stats.js').then((m) => m.runStats)),
      flags: ['namespace', 'database-url'],
      words: 0,
    },
  ],
  [
    'restore',
    {
      run: lazy(() => import('./commands/restore.js').then((m) => m.runRestore)),
      flags: ['namespace', 'database-url'],
      words: 1,
    },
  ],
  [
    'promote',
    {
      run: lazy(() => import('./commands/promote.js').then((m) => m.runPromote)),
      flags: ['namespace', 'database-url', 'dry-run', 'apply', 'force'],
      words: 1,
    },
  ],
  [
    'vault',
    {
      run: lazy(() => import('./commands/vault.js').then((m) => m.runVault)),
      flags: [],
      words: Number.POSITIVE_INFINITY,
    },
  ],
  [
    'reindex',
    {
      run: lazy(() => import('./commands/reindex.js').then((m) => m.runReindex)),
      flags: ['all', 'database-url'],
      words: 0,
    },
  ],
  [
    'db',
    {
      run: lazy(() => import('./commands/db.js').then((m) => m.runDb)),
      flags: ['database-url'],
      words: Number.POSITIVE_INFINITY,
    },
  ],
  [
    'tokens',
    {
      run: lazy(() => import('./commands/tokens.js').then((m) => m.runTokens)),
      flags: ['database-url'],
      words: 2,
    },
  ],
  [
    'import',
    {
      run: lazy(() => import('./commands/import.js').then((m) => m.runImport)),
      flags: ['from', 'namespace', 'database-url', 'dry-run'],
      words: 1,
    },
  ],
  [
    'export',
    {
      run: lazy(() => import('./commands/export.js').then((m) => m.runExport)),
      flags: ['format', 'out', 'namespace', 'database-url'],
      words: 0,
    },
  ],
  [
    'migrate',
    {
      run: lazy(() => import('./commands/migrate.js').then((m) => m.runMigrate)),
      flags: ['from', 'to', 'namespace'],
      words: 0,
    },
  ],
]);

/**
 * Refuses a flag or a word the command would silently ignore: `gc --apply --tags work` must
 * not forget every candidate whatever its tags, nor `restore ID1 ID2` restore only the first.
 */
function checkArgs(name: string, flags: Record<string, unknown>, args: string[]): void {
  const command = COMMANDS.get(name);
  if (!command) throw new UsageError(`unknown command "${name}"`);
  for (const flag of Object.keys(flags)) {
    if (!COMMON_FLAGS.includes(flag) && !command.flags.includes(flag)) {
      throw new UsageError(`${name} does not take --${flag}`);
    }
  }
  if (args.length > command.words) {
    throw new UsageError(
      command.words === 0
        ? `${name} takes no words (got "${args.join(' ')}"): its options start with --`
        : `${name} takes one ID (got ${args.length}): give one at a time`,
    );
  }
}

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The process's SIGINT/SIGTERM and exit, so `stdio` and `serve` stop cleanly on a signal. */
  signals?: ProcessSignals;
}

/** Runs one mnemo command; resolves to the process exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    return report(error, io);
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  // A reader that went away (`mnemo gc | head -1`) ends the output, not the command.
  let stdoutGone = false;
  io.stdout.on('error', () => {
    stdoutGone = true;
  });
  // The terminal's edge: what a memory, a note or an import file holds is shown, never obeyed.
  const out = (s: string) => {
    if (!stdoutGone) io.stdout.write(`${terminalText(s)}\n`);
  };
  const { values: flags, positionals } = parseCommandLine(argv);
  if (flags.version) {
    out(VERSION);
    return 0;
  }
  const [name, ...args] = positionals;
  if (flags.help || !name || name === 'help') {
    out(HELP);
    return name || flags.help ? 0 : 2;
  }
  checkArgs(name, flags, args);
  const command = COMMANDS.get(name)?.run as Command;
  const config = loadConfig({
    env: io.env,
    flags: {
      dataDir: flags['data-dir'],
      at: flags.at,
      host: flags.host,
      port: flags.port,
      namespace: flags.namespace,
      databaseUrl: flags['database-url'],
    },
  });
  return await command({
    config,
    args,
    flags,
    out,
    stdout: io.stdout,
    stderr: io.stderr,
    signals: io.signals,
    env: io.env,
  });
}

/**
 * The one place an error becomes a message and an exit code: a usage error 2, with a pointer to
 * --help; any other UserError 1, its message as it is; anything else 1 too, and its stack when
 * MNEMO_LOG_LEVEL asks for debug (read here: the settings may be what failed).
 */
export function report(error: unknown, io: Pick<CliIo, 'env' | 'stderr'>): number {
  if (error instanceof UsageError) {
    io.stderr.write(`mnemo: ${terminalText(error.message)}\nRun mnemo --help for usage.\n`);
    return 2;
  }
  if (error instanceof UserError) {
    io.stderr.write(`mnemo: ${terminalText(error.message)}\n`);
    return 1;
  }
  // Unexpected: one line for the person, the stack only when asked for.
  io.stderr.write(
    `mnemo: ${terminalText((error as Error | undefined)?.message ?? String(error))}\n`,
  );
  if (io.env.MNEMO_LOG_LEVEL === 'debug' || io.env.MNEMO_LOG_LEVEL === 'trace') {
    io.stderr.write(`${(error as Error | undefined)?.stack ?? ''}\n`);
  }
  return 1;
}
