import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError } from '../config/index.js';
import { DirLock, LockTimeoutError } from '../platform/dir-lock.js';
import { makeDirs, readIfExists, replaceFile } from '../platform/durable-file.js';
import { trimEndChar } from '../platform/linear-text.js';

/** One MCP server as a remote agent (xAI's server_url / server_label / authorization) sees it. */
export interface ManifestServer {
  label: string;
  url: string;
  headers: Record<string, string>;
}

export interface Manifest {
  servers: ManifestServer[];
}

export interface ManifestOptions {
  /** Wall-clock milliseconds, for the name of a file set aside. */
  clock: () => number;
  /** Told when a corrupt file is set aside. */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * gateway.json, shared by every mnemo instance on the machine. Each instance owns the entries
 * it publishes under its public URL (`owned`); an update replaces those and keeps the others',
 * read, merged and replaced atomically (temp file, fsync, rename) under a lock. A file that is not a
 * manifest (empty, cut short, edited by hand) is renamed to `<file>.corrupt-<time>` and logged,
 * and the update starts from no entries: the other instances' come back when they publish.
 */
export class ManifestFile {
  private readonly lock: DirLock;
  private readonly logger: Pick<Logger, 'warn'> | undefined;
  private readonly clock: () => number;

  constructor(
    readonly file: string,
    options: ManifestOptions,
  ) {
    const dir = path.dirname(file);
    this.lock = new DirLock(dir, `${file}.lock`);
    this.logger = options.logger;
    this.clock = options.clock;
  }

  /** Puts `servers` in place of every entry under `publicUrl`. */
  async publish(publicUrl: string, servers: ManifestServer[]): Promise<void> {
    await this.update((others) => [...others.filter((s) => !owned(s, publicUrl)), ...servers]);
  }

  /** Takes out the entries under `publicUrl` (a clean stop). */
  async withdraw(publicUrl: string): Promise<void> {
    await this.update((others) => others.filter((s) => !owned(s, publicUrl)));
  }

  /** The manifest; a ConfigError naming the file when it is not one. */
  read(): Manifest {
    const parsed = this.parsed();
    if (parsed === undefined) return { servers: [] };
    if (typeof parsed === 'string') {
      throw new ConfigError(
        `${this.file} is not a valid gateway.json (${parsed}): move it aside or delete it, and mnemo serve writes a new one`,
      );
    }
    return parsed;
  }

  /** The entries to update from; a file that is not a manifest is set aside first. */
  private currentServers(): ManifestServer[] {
    const parsed = this.parsed();
    if (parsed === undefined) return [];
    if (typeof parsed !== 'string') return parsed.servers;
    const stamp = new Date(this.clock()).toISOString().replace(/[:.]/g, '-');
    let aside = `${this.file}.corrupt-${stamp}`;
    // Never over an earlier one (same millisecond, or a clock that stands still).
    for (let n = 1; fs.existsSync(aside); n++) aside = `${this.file}.corrupt-${stamp}-${n}`;
    fs.renameSync(this.file, aside);
    this.logger?.warn(
      { manifest: this.file, keptAs: aside, problem: parsed },
      `${this.file} was not a valid gateway.json (${parsed}): kept it as ${aside} and wrote a new one with this instance's entries; restart the other mnemo serve instances that share it to add theirs back`,
    );
    return [];
  }

  /**
   * The manifest, what is wrong with it, or undefined when there is no file. A file of more than
   * MAX_MANIFEST_BYTES is not read: mnemo writes a few hundred bytes an instance, and read whole
   * a 300 MB one held the event loop a second, inside the lock, as a tunnel came up.
   */
  private parsed(): Manifest | string | undefined {
    let text: string | undefined;
    try {
      text = readIfExists(this.file, MAX_MANIFEST_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EFBIG') throw error;
      return `it is larger than ${MAX_MANIFEST_BYTES >> 20} MB`;
    }
    return text === undefined ? undefined : parseManifest(text);
  }

  private async update(change: (servers: ManifestServer[]) => ManifestServer[]): Promise<void> {
    try {
      makeDirs(path.dirname(this.file));
      await this.lock.run(() => {
        const next: Manifest = { servers: change(this.currentServers()) };
        replaceFile(this.file, `${JSON.stringify(next, null, 2)}\n`);
      });
    } catch (error) {
      if (error instanceof LockTimeoutError) throw error;
      throw new ConfigError(
        `cannot write gateway.json at ${this.file} (${(error as Error).message}): make its folder writable, or point MNEMO_GATEWAY_MANIFEST at another file`,
      );
    }
  }
}

const MAX_MANIFEST_BYTES = 1 << 20;

/** The manifest in `text`, or what is wrong with it. */
function parseManifest(text: string): Manifest | string {
  if (text.trim() === '') return 'it is empty';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const servers = (value as { servers?: unknown } | null)?.servers;
  if (typeof value !== 'object' || value === null || !Array.isArray(servers)) {
    return 'it has no "servers" list';
  }
  const bad = servers.findIndex((s) => !isManifestServer(s));
  if (bad !== -1) return `servers[${bad}] is not {label, url, headers}`;
  // These fields only: another field, nested deep, would overflow JSON.stringify at each update.
  return {
    servers: (servers as ManifestServer[]).map(({ label, url, headers }) => ({
      label,
      url,
      headers: { ...headers },
    })),
  };
}

function isManifestServer(value: unknown): value is ManifestServer {
  const s = value as Partial<ManifestServer> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.label === 'string' &&
    typeof s.url === 'string' &&
    typeof s.headers === 'object' &&
    s.headers !== null &&
    !Array.isArray(s.headers) &&
    Object.values(s.headers).every((h) => typeof h === 'string')
  );
}

/**
 * Whether `server` is an entry `publicUrl` publishes: its memory at <url>/mcp, an upstream at
 * <url>/mcp/<label>. Not every URL under it: instances behind one host routed by path
 * (https://h and https://h/b) each keep their own entries.
 */
function owned(server: ManifestServer, publicUrl: string): boolean {
  const base = trimEndChar(publicUrl, '/');
  return (
    (server.label === 'mnemo' && server.url === `${base}/mcp`) ||
    server.url === `${base}/mcp/${server.label}`
  );
}
