import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, syncDir } from '../storage/jsonl-file.js';
import { DirLock } from '../storage/lock.js';

/** One MCP server as a remote agent (xAI's server_url / server_label / authorization) sees it. */
export interface ManifestServer {
  label: string;
  url: string;
  headers: Record<string, string>;
}

export interface Manifest {
  servers: ManifestServer[];
}

/**
 * gateway.json, shared by every mnemo instance on the machine. Each instance owns the entries
 * whose URL starts with its public URL; an update replaces those and keeps the others', read,
 * merged and replaced atomically (temp file, fsync, rename) under a lock.
 */
export class ManifestFile {
  private readonly lock: DirLock;

  constructor(readonly file: string) {
    const dir = path.dirname(file);
    this.lock = new DirLock(dir, `${file}.lock`);
  }

  /** Puts `servers` in place of every entry under `publicUrl`. */
  async publish(publicUrl: string, servers: ManifestServer[]): Promise<void> {
    await this.update((others) => [...others.filter((s) => !owned(s, publicUrl)), ...servers]);
  }

  /** Takes out the entries under `publicUrl` (a clean stop). */
  async withdraw(publicUrl: string): Promise<void> {
    await this.update((others) => others.filter((s) => !owned(s, publicUrl)));
  }

  read(): Manifest {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [] };
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<Manifest>;
    return { servers: Array.isArray(parsed.servers) ? parsed.servers : [] };
  }

  private async update(change: (servers: ManifestServer[]) => ManifestServer[]): Promise<void> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await this.lock.run(() => {
      const next: Manifest = { servers: change(this.read().servers) };
      const tmp = `${this.file}.${process.pid}.tmp`;
      const fd = fs.openSync(tmp, 'w', FILE_MODE);
      try {
        fs.writeSync(fd, `${JSON.stringify(next, null, 2)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, this.file);
      syncDir(path.dirname(this.file));
    });
  }
}

function owned(server: ManifestServer, publicUrl: string): boolean {
  const base = publicUrl.replace(/\/+$/, '');
  return server.url === base || server.url.startsWith(`${base}/`);
}
