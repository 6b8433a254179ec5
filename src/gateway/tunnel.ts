import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from 'pino';

// The URL alone, as the announcement's box has it: not one a path or a quote follows, as in a
// failed request to https://api.trycloudflare.com/tunnel, nor one that ends another URL or word
// (a forwarded request's dest=, http://127.0.0.1:9/https://x.trycloudflare.com).
const QUICK_TUNNEL_URL = /(?<!\S)https:\/\/[a-z0-9-]+\.trycloudflare\.com(?!\S)/;

export interface TunnelOptions {
  /** The cloudflared binary (MNEMO_CLOUDFLARED). */
  command: string;
  /**
   * The whole environment cloudflared runs with (cloudflaredEnvironment): never mnemo's own,
   * which holds its tokens and database URL.
   */
  env: Readonly<Record<string, string>>;
  /** The local URL to expose, e.g. http://127.0.0.1:7744. */
  target: string;
  logger: Logger;
  /** Told each new public URL, with the one it replaces. */
  onUrl(url: string, previous: string | undefined): Promise<void> | void;
  /** First restart delay; it doubles up to `maxRestartMs`. */
  restartMs?: number;
  maxRestartMs?: number;
}

/** What any program needs to run, find its files and reach the network (a proxy included). */
const KEPT = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'TZ',
  'TMPDIR',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  // cloudflared's own documented switch
  'NO_AUTOUPDATE',
  // Windows: a process cannot start or find its profile without these.
  'SystemRoot',
  'SYSTEMROOT',
  'windir',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'TEMP',
  'TMP',
  'PATHEXT',
  'ComSpec',
]);

/**
 * The environment cloudflared gets out of mnemo's: what `KEPT` names, the locale (LC_*), and
 * cloudflared's own settings (TUNNEL_*, CLOUDFLARED_*). Nothing else, so no MNEMO_AUTH_TOKEN,
 * MNEMO_TOKENS, MNEMO_DATABASE_URL, nor any other secret the shell exported, reaches a program
 * that talks to the internet.
 */
export function cloudflaredEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (
      KEPT.has(name) ||
      name.startsWith('LC_') ||
      name.startsWith('TUNNEL_') ||
      name.startsWith('CLOUDFLARED_')
    ) {
      kept[name] = value;
    }
  }
  return kept;
}

/**
 * A Cloudflare quick tunnel: runs `cloudflared tunnel --url <target>` in its own process group,
 * reads the https://*.trycloudflare.com URL it prints, and when cloudflared exits starts it
 * again (with backoff) and reports the new URL.
 */
export class QuickTunnel {
  private child: ChildProcess | undefined;
  private current: string | undefined;
  private stopping = false;
  private delay: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TunnelOptions) {
    this.delay = options.restartMs ?? 1_000;
  }

  get url(): string | undefined {
    return this.current;
  }

  start(): void {
    const { command, target, logger, env } = this.options;
    const child = spawn(command, ['tunnel', '--url', target], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    const startedAt = performance.now();
    const readers = announcementReaders((url) => this.announce(url));
    child.stdout?.on('data', readers.stdout);
    child.stderr?.on('data', readers.stderr);
    child.on('error', (error) => {
      logger.error(
        { command, err: error.message },
        'cannot start cloudflared: install it or set MNEMO_CLOUDFLARED',
      );
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.stopping) return;
      // A tunnel that lived a while restarts promptly; one that keeps dying backs off.
      if (performance.now() - startedAt > 60_000) this.delay = this.options.restartMs ?? 1_000;
      logger.warn({ code, signal, restartInMs: this.delay }, 'cloudflared exited; restarting');
      this.timer = setTimeout(() => this.start(), this.delay);
      this.delay = Math.min(this.delay * 2, this.options.maxRestartMs ?? 30_000);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
    const timeout = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {}
    }, 3_000);
    await exited;
    clearTimeout(timeout);
  }

  /** Takes `url`, the run's announced URL, and tells it when it is new. */
  private announce(url: string): void {
    if (url === this.current) return;
    const previous = this.current;
    this.current = url;
    this.options.logger.info({ url: this.current }, 'tunnel ready');
    Promise.resolve(this.options.onUrl(this.current, previous)).catch((error: Error) =>
      this.options.logger.error({ err: error.message }, 'cannot publish the tunnel URL'),
    );
  }
}

/**
 * What reads a cloudflared run's stdout and stderr: a line each of its own (the two pipes' chunks
 * come in any order, and a line of one cut by a chunk of the other is still read whole), one
 * announcement between them, which `onUrl` gets.
 */
export function announcementReaders(onUrl: (url: string) => void): {
  stdout: (chunk: Buffer) => void;
  stderr: (chunk: Buffer) => void;
} {
  let announced = false;
  const once = (url: string) => {
    if (announced) return;
    announced = true;
    onUrl(url);
  };
  return { stdout: announcementReader(once), stderr: announcementReader(once) };
}

/**
 * What reads one stream of a cloudflared run's output (chunks as they come): `onUrl` gets
 * one URL, the one cloudflared announces before anything is forwarded. Its later lines log the
 * requests it forwards (`dest=https://<host>/<path>`, an origin error's URL), whose path a caller
 * writes: a trycloudflare.com URL there would become the allowed host and gateway.json's address,
 * with the token in its headers. Once announced, nothing is read.
 */
export function announcementReader(onUrl: (url: string) => void): (chunk: Buffer) => void {
  let announced = false;
  let buffer = '';
  // In a line longer than the buffer: its rest, up to the newline, is not read as a line.
  let skipping = false;
  const onLine = (line: string): boolean => {
    const match = QUICK_TUNNEL_URL.exec(line);
    if (match) onUrl(match[0]);
    return match !== null;
  };
  return (chunk) => {
    if (announced) return;
    buffer += chunk.toString('utf8');
    let nl = buffer.indexOf('\n');
    while (nl !== -1 && !announced) {
      if (!skipping) announced = onLine(buffer.slice(0, nl));
      skipping = false;
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
    // The announcement is a short line: a longer run without a newline is not it, nor its end.
    if (announced || buffer.length > 4096) {
      skipping = !announced;
      buffer = '';
    }
  };
}
