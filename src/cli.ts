#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from './config.js';
import type { ManifestServer } from './gateway/manifest.js';
import type { QuickTunnel } from './gateway/tunnel.js';
import { createLogger } from './logger.js';
import { MemoryError } from './memory/errors.js';
import { type OpenedMemory, openMemory } from './memory/open.js';
import type { GcCandidate } from './memory/service.js';
import { createServer } from './server.js';
import { LockTimeoutError } from './storage/lock.js';
import { StoreError } from './storage/store.js';
import { hostName, isLoopbackAddress } from './transport/hosts.js';
import type { listen } from './transport/http.js';
import { serveStdio } from './transport/stdio.js';
import { initVault, type VaultInit } from './vault/template.js';
import { VERSION } from './version.js';

const HELP = `mnemo ${VERSION}: memory for AI agents, served as MCP tools

Usage:
  mnemo stdio                 serve the memory tools over stdin/stdout (for Claude Desktop)
  mnemo serve [--host H] [--port P] [--tunnel]
                              serve them over streamable HTTP at POST /mcp (default
                              127.0.0.1:7744), behind MNEMO_AUTH_TOKEN; GET /health
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
  mnemo reindex [--all]       compute the embeddings that are missing (MNEMO_EMBEDDINGS), with
                              a progress bar; --all computes every one again

Options (every command):
  --data-dir DIR              data folder (default $MNEMO_DATA_DIR, else $XDG_DATA_HOME/mnemo,
                              else ~/.local/share/mnemo)
  --at DATE                   run as if it were DATE (ISO date or epoch seconds), e.g. to see
                              what gc will forget by then
  --json                      print JSON instead of a table
  -h, --help                  this help
  -v, --version               the version

Settings come from the environment; see the README for every MNEMO_* variable.
`;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

class UsageError extends Error {}

/** Runs one mnemo command; resolves to the process exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const out = (s: string) => io.stdout.write(`${s}\n`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr.write(`mnemo: ${(error as Error).message}\nRun mnemo --help for usage.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    out(VERSION);
    return 0;
  }
  const [command, ...args] = positionals;
  if (values.help || !command || command === 'help') {
    out(HELP);
    return command || values.help ? 0 : 2;
  }
  try {
    const config = loadConfig({
      env: io.env,
      flags: { dataDir: values['data-dir'], at: values.at, host: values.host, port: values.port },
    });
    switch (command) {
      case 'stdio':
        return await runStdio(config);
      case 'serve':
        return await runServe(config, values.tunnel === true, out);
      case 'gc':
        return await runGc(config, values, out);
      case 'search':
        return await runSearch(config, args, values, out);
      case 'stats':
        return await runStats(config, values, out);
      case 'restore':
        return await runRestore(config, args, values, out);
      case 'promote':
        return await runPromote(config, args, values, out);
      case 'vault':
        return runVault(config, args, values, out);
      case 'reindex':
        return await runReindex(config, values, out, io.stderr);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`mnemo: ${error.message}\nRun mnemo --help for usage.\n`);
      return 2;
    }
    if (
      error instanceof ConfigError ||
      error instanceof StoreError ||
      error instanceof LockTimeoutError ||
      error instanceof MemoryError
    ) {
      io.stderr.write(`mnemo: ${error.message}\n`);
      return 1;
    }
    // Unexpected: one line for the person, the stack only when asked for.
    io.stderr.write(`mnemo: ${(error as Error).message ?? String(error)}\n`);
    if (io.env.MNEMO_LOG_LEVEL === 'debug' || io.env.MNEMO_LOG_LEVEL === 'trace') {
      io.stderr.write(`${(error as Error).stack ?? ''}\n`);
    }
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'data-dir': { type: 'string' },
      host: { type: 'string' },
      tunnel: { type: 'boolean' },
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

type Values = ReturnType<typeof parse>['values'];

function clockFor(config: Config): () => number {
  const fixed = config.now;
  return fixed !== undefined ? () => fixed : () => Math.floor(Date.now() / 1000);
}

async function withMemory<T>(
  config: Config,
  fn: (opened: OpenedMemory) => Promise<T> | T,
): Promise<T> {
  const logger = createLogger(config.logLevel);
  const opened = openMemory(config, { logger, clock: clockFor(config) });
  try {
    await opened.ready;
    return await fn(opened);
  } finally {
    await opened.close();
  }
}

async function runStdio(config: Config): Promise<number> {
  const logger = createLogger(config.logLevel);
  const started = performance.now();
  // The store loads in the background: the handshake and tools/list are answered at once,
  // and tool calls wait for the load.
  const opened = openMemory(config, { logger, clock: clockFor(config), watchVault: true });
  opened.ready.then(
    () =>
      logger.info(
        {
          dataDir: config.dataDir,
          memories: opened.store.memories.size,
          ms: Math.round(performance.now() - started),
        },
        'memory store loaded',
      ),
    (error: Error) =>
      logger.error({ dataDir: config.dataDir, err: error.message }, 'cannot load the memory store'),
  );
  const server = createServer({ memory: opened.memory });
  const stop = () => {
    void opened.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  logger.info({ dataDir: config.dataDir, decay: config.decayModel }, 'mnemo stdio ready');
  await serveStdio(server, { logger });
  // Let a load in progress, and the calls waiting on it, finish before the store closes.
  await opened.ready.catch(() => {});
  await opened.close();
  return 0;
}

async function runServe(
  config: Config,
  withTunnel: boolean,
  out: (s: string) => void,
): Promise<number> {
  if (withTunnel && config.authToken === undefined) {
    throw new ConfigError(
      'refusing to open a public tunnel without a token: set MNEMO_AUTH_TOKEN (e.g. to the output of openssl rand -hex 32)',
    );
  }
  if (!isLoopbackAddress(config.httpHost) && config.authToken === undefined) {
    throw new ConfigError(
      `refusing to listen on ${config.httpHost} without a token: set MNEMO_AUTH_TOKEN (e.g. to the output of openssl rand -hex 32), or listen on 127.0.0.1 (MNEMO_HTTP_HOST)`,
    );
  }
  // Loaded here, not at the top: `mnemo stdio` starts without express and the gateway.
  const [{ loadGatewayConfig }, { ManifestFile }, { createGateway }, { QuickTunnel }, http] =
    await Promise.all([
      import('./gateway/config.js'),
      import('./gateway/manifest.js'),
      import('./gateway/proxy.js'),
      import('./gateway/tunnel.js'),
      import('./transport/http.js'),
    ]);
  const { createHttpApp, listen } = http;
  // The tunnel adds its host once it knows it.
  const allowedHosts = [...config.allowedHosts];
  // A bad gateway config stops the start before anything is opened.
  const servers =
    config.gatewayConfig === undefined ? undefined : loadGatewayConfig(config.gatewayConfig);
  const logger = createLogger(config.logLevel);
  const opened = openMemory(config, { logger, clock: clockFor(config), watchVault: true });
  let loaded = false;
  opened.ready.then(
    () => {
      loaded = true;
    },
    (error: Error) => logger.error({ err: error.message }, 'cannot load the memory store'),
  );
  const gateway =
    servers === undefined
      ? undefined
      : createGateway({ servers, logger, callTimeoutMs: config.gatewayTimeoutMs });
  const app = createHttpApp({
    ...(gateway ? { gateway } : {}),
    createMcpServer: () => createServer({ memory: opened.memory }),
    authToken: config.authToken,
    allowedHosts,
    bodyLimit: config.httpBodyLimit,
    rateLimitPerMinute: config.rateLimitPerMinute,
    logger,
    health: () => ({
      status: 'ok',
      version: VERSION,
      store: loaded ? 'ready' : 'loading',
      memories: loaded ? opened.store.memories.size : null,
      upstreams: gateway?.health() ?? [],
    }),
  });
  let running: Awaited<ReturnType<typeof listen>>;
  try {
    running = await listen(app, config.httpHost, config.httpPort);
  } catch (error) {
    await opened.close();
    await gateway?.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'EADDRINUSE'
        ? `port ${config.httpPort} on ${config.httpHost} is in use: stop what runs there, or pick another with --port or MNEMO_HTTP_PORT`
        : `cannot listen on ${config.httpHost}:${config.httpPort}: ${(error as Error).message}`,
    );
  }
  // Listening from here: a signal during the rest of the start drains as it would later, and a
  // failure stops everything before it is reported; the server never runs half-started.
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const manifest = new ManifestFile(config.gatewayManifest, { logger, clock: () => Date.now() });
  let publicUrl = config.publicUrl;
  let tunnel: QuickTunnel | undefined;
  const stop = async () => {
    await tunnel?.stop();
    if (publicUrl !== undefined) await manifest.withdraw(publicUrl).catch(() => {});
    await running.close(5_000);
    await gateway?.close();
    await opened.ready.catch(() => {});
    await opened.close();
  };
  const publish = async (url: string, previous: string | undefined) => {
    if (previous !== undefined) await manifest.withdraw(previous);
    publicUrl = url;
    await manifest.publish(url, manifestEntries(url, config, gateway));
    logger.info({ manifest: config.gatewayManifest, publicUrl: url }, 'gateway.json written');
  };
  try {
    if (publicUrl !== undefined) await publish(publicUrl, undefined);
    if (withTunnel) {
      const port = new URL(running.url).port;
      tunnel = new QuickTunnel({
        command: config.cloudflared,
        target: `http://127.0.0.1:${port}`,
        logger,
        restartMs: config.tunnelRestartMs,
        onUrl: async (url, previous) => {
          allowedHosts.push(hostName(url));
          await publish(url, previous ?? publicUrl);
          out(`mnemo serve: ${url}/mcp (tunnel)`);
        },
      });
      tunnel.start();
    }
  } catch (error) {
    logger.warn('the start failed after listening: stopping the server');
    await stop();
    throw error;
  }
  out(`mnemo serve: ${running.url}/mcp${config.authToken ? ' (bearer auth on)' : ''}`);
  logger.info({ url: running.url, auth: config.authToken !== undefined }, 'mnemo serve listening');
  await signalled;
  // A second signal does not wait for the drain (every answered write is on disk already).
  const force = () => {
    logger.warn('second signal: stopping now');
    process.exit(1);
  };
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  logger.info('stopping: draining requests in flight');
  await stop();
  return 0;
}

/** What a remote agent needs to reach mnemo and each upstream at `publicUrl`. */
function manifestEntries(
  publicUrl: string,
  config: Config,
  gateway: { labels(): string[]; tokenFor(label: string): string | undefined } | undefined,
): ManifestServer[] {
  const bearer = (token: string | undefined): Record<string, string> =>
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  return [
    { label: 'mnemo', url: `${publicUrl}/mcp`, headers: bearer(config.authToken) },
    ...(gateway?.labels() ?? []).map((label) => ({
      label,
      url: `${publicUrl}/mcp/${label}`,
      headers: bearer(gateway?.tokenFor(label) ?? config.authToken),
    })),
  ];
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number of 1 or more (got "${value}")`);
  return n;
}

async function runGc(config: Config, values: Values, out: (s: string) => void): Promise<number> {
  if (values.apply && values['dry-run']) {
    throw new UsageError('--apply and --dry-run contradict each other: pick one');
  }
  const apply = values.apply === true;
  const archive = values.archive === true;
  const limit = positiveInt(values.limit, '--limit');
  return withMemory(config, async ({ memory, store }) => {
    const result = await memory.gc({ dry_run: !apply, archive_instead: archive, limit });
    if (values.json) {
      out(JSON.stringify(result, null, 2));
      return 0;
    }
    const at = new Date(memory.now() * 1000).toISOString().slice(0, 16).replace('T', ' ');
    if (result.candidates.length > 0) out(gcTable(result.candidates, apply));
    const total = store.memories.size + (apply && !archive ? result.total_affected : 0);
    const verb = apply
      ? archive
        ? 'Archived'
        : 'Forgot'
      : archive
        ? 'Would archive'
        : 'Would forget';
    out(
      `${verb} ${result.total_affected} of ${total} memories (score below ${config.forgetThreshold} at ${at} UTC).` +
        (apply
          ? archive
            ? ' `mnemo restore ID` makes one active again.'
            : ' They are kept in forgotten.jsonl: `mnemo restore ID` brings one back.'
          : result.total_affected > 0
            ? ` Run \`mnemo gc --apply${archive ? ' --archive' : ''}\` to do it.`
            : ''),
    );
    return 0;
  });
}

function gcTable(rows: GcCandidate[], applied: boolean): string {
  const header = ['ID', 'AGE', 'SCORE', 'PREVIEW', applied ? 'DONE' : 'WOULD'];
  const body = rows.map((r) => [
    r.memory_id,
    `${r.age_days}d`,
    r.score.toFixed(4),
    r.preview.length > 48 ? `${r.preview.slice(0, 47)}…` : r.preview,
    applied ? (r.action === 'archive' ? 'archived' : 'forgotten') : r.action,
  ]);
  return table(header, body);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - [...c].length)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

async function runSearch(
  config: Config,
  args: string[],
  values: Values,
  out: (s: string) => void,
): Promise<number> {
  const query = args.join(' ').trim();
  if (!query) throw new UsageError('search needs a QUERY, e.g. mnemo search "who is ralph"');
  const topK = positiveInt(values['top-k'], '--top-k');
  if (topK !== undefined && topK > 100) throw new UsageError('--top-k must be at most 100');
  const tags = values.tags
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return withMemory(config, async ({ memory, semantic }) => {
    // A one-shot search waits for the model (a server searches by words until it is there).
    await semantic.ready;
    const found = await memory.search({ query, top_k: topK, tags });
    if (values.json) {
      out(JSON.stringify(found, null, 2));
      return 0;
    }
    if (found.results.length === 0) {
      out('No memory matches.');
      return 0;
    }
    out(
      table(
        ['ID', 'SCORE', 'RELEVANCE', 'CONTENT'],
        found.results.map((r) => [
          r.memory_id,
          r.score.toFixed(3),
          r.relevance.toFixed(3),
          `${r.review_candidate ? '[review] ' : ''}${r.content.replace(/\s+/g, ' ').slice(0, 70)}`,
        ]),
      ),
    );
    out(`${found.results.length} of ${found.total} matches.`);
    return 0;
  });
}

async function runReindex(
  config: Config,
  values: Values,
  out: (s: string) => void,
  stderr: NodeJS.WritableStream,
): Promise<number> {
  return withMemory(config, async ({ semantic }) => {
    await semantic.ready;
    if (!semantic.enabled) {
      throw new MemoryError(
        `no embedding model to index with (MNEMO_EMBEDDINGS=${config.embeddings}): set MNEMO_EMBEDDINGS to auto or static`,
        'MNEMO_EMBEDDINGS',
      );
    }
    const bar = progressBar(stderr);
    const started = performance.now();
    const result = await semantic.reindex({ all: values.all === true, onProgress: bar.update });
    bar.done();
    const seconds = (performance.now() - started) / 1000;
    if (values.json) {
      out(JSON.stringify({ ...result, seconds }, null, 2));
      return 0;
    }
    out(
      `Embedded ${result.embedded} of ${result.total} memories with ${result.model} in ${seconds.toFixed(1)} s` +
        (result.embedded === 0 ? ' (every vector was up to date).' : '.'),
    );
    return 0;
  });
}

/** A one-line bar on a terminal; a line every 10% elsewhere (a log, CI). */
function progressBar(stream: NodeJS.WritableStream): {
  update: (done: number, total: number) => void;
  done: () => void;
} {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  let lastTenth = -1;
  let drawn = false;
  return {
    update(done, total) {
      if (total === 0) return;
      const share = done / total;
      if (tty) {
        const width = 30;
        const filled = Math.round(share * width);
        stream.write(
          `\rembedding [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`,
        );
        drawn = true;
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        stream.write(`embedding ${done}/${total} (${tenth * 10}%)\n`);
      }
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}

async function runStats(config: Config, values: Values, out: (s: string) => void): Promise<number> {
  return withMemory(config, async ({ memory }) => {
    const s = await memory.stats();
    if (values.json) {
      out(JSON.stringify(s, null, 2));
      return 0;
    }
    const q = s.score_quantiles;
    out(`data dir      ${config.dataDir}`);
    out(
      `memories      ${s.total} (${s.by_status.active} active, ${s.by_status.promoted} promoted, ${s.by_status.archived} archived)`,
    );
    out(`relations     ${s.relations}`);
    out(
      `scores        ${q ? `p10 ${q.p10}  p25 ${q.p25}  p50 ${q.p50}  p75 ${q.p75}  p90 ${q.p90}` : 'none'}`,
    );
    out(`due review    ${s.danger_zone_count}`);
    out(`gc would      forget ${s.gc_candidates}`);
    out(`promotable    ${s.promotion_candidates}`);
    out(
      `on disk       ${Object.entries(s.store_bytes)
        .map(([f, b]) => `${f} ${b} B`)
        .join(', ')}`,
    );
    return 0;
  });
}

async function runRestore(
  config: Config,
  args: string[],
  values: Values,
  out: (s: string) => void,
): Promise<number> {
  const [id] = args;
  if (!id) throw new UsageError('restore needs the ID of a memory, e.g. mnemo restore 7f3c…');
  return withMemory(config, async ({ memory }) => {
    const done = await memory.restore(id);
    out(values.json ? JSON.stringify(done, null, 2) : `${done.memory_id} is ${done.status}.`);
    return 0;
  });
}

async function runPromote(
  config: Config,
  args: string[],
  values: Values,
  out: (s: string) => void,
): Promise<number> {
  if (values.apply && values['dry-run']) {
    throw new UsageError('--apply and --dry-run contradict each other: pick one');
  }
  const [id] = args;
  if (values.force && !id) {
    throw new UsageError(
      '--force promotes one memory: give its ID, e.g. mnemo promote 7f3c… --force',
    );
  }
  const apply = values.apply === true;
  return withMemory(config, async ({ memory }) => {
    const result = await memory.promote({
      ...(id ? { memory_id: id } : { auto_detect: true }),
      dry_run: !apply,
      force: values.force === true,
    });
    if (values.json) {
      out(JSON.stringify(result, null, 2));
      return 0;
    }
    const paths = new Map(result.promoted.map((p) => [p.memory_id, p.path]));
    if (result.candidates.length > 0) {
      out(
        table(
          ['ID', 'SCORE', 'USES', 'AGE', apply ? 'NOTE' : 'WHY', 'PREVIEW'],
          result.candidates.map((c) => [
            c.memory_id,
            c.score.toFixed(3),
            String(c.use_count),
            `${c.age_days}d`,
            apply ? (paths.get(c.memory_id) ?? 'failed') : c.reason,
            c.preview.length > 40 ? `${c.preview.slice(0, 39)}…` : c.preview,
          ]),
        ),
      );
    }
    for (const f of result.failed) out(`${f.memory_id}: ${f.error}`);
    out(
      apply
        ? `Promoted ${result.promoted_count} of ${result.candidates_found} to ${config.vaultDir}.`
        : `${result.candidates_found} ${result.candidates_found === 1 ? 'memory qualifies' : 'memories qualify'} for the vault.` +
            (result.candidates_found > 0
              ? ` Run \`mnemo promote${id ? ` ${id}` : ''} --apply${values.force ? ' --force' : ''}\` to write ${result.candidates_found === 1 ? 'its note' : 'their notes'}.`
              : ''),
    );
    return 0;
  });
}

function runVault(
  config: Config,
  args: string[],
  values: Values,
  out: (s: string) => void,
): number {
  const [sub, dir, ...rest] = args;
  if (sub !== 'init' || rest.length > 0) {
    throw new UsageError('vault takes one subcommand: mnemo vault init [DIR]');
  }
  const vault = path.resolve(dir ?? config.vaultDir);
  let done: VaultInit;
  try {
    done = initVault(vault, config.vaultFolder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot make the vault at ${vault}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message}; pick a folder you can write`,
    );
  }
  if (values.json) {
    out(JSON.stringify(done, null, 2));
    return 0;
  }
  out(
    done.created
      ? `Made a vault at ${vault} from the template. In Obsidian: Open folder as vault, and pick it.`
      : `${vault} already holds files: used as it is, with ${done.folder}/ for mnemo's notes.`,
  );
  if (dir && path.resolve(dir) !== config.vaultDir) {
    out(`Set MNEMO_VAULT_DIR=${vault} for mnemo to promote into it.`);
  }
  return 0;
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return fs.realpathSync(entry) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  }).then((code) => {
    process.exitCode = code;
  });
}
