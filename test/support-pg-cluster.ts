// A PostgreSQL cluster of one test's own (initdb in a temp dir, listening on a socket in it only),
// for tests that crash or restart the server: never the machine's shared one. Skipped, saying
// why, where initdb or pg_ctl are missing.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Cluster {
  /** The URL of its `postgres` database (trust auth, over the socket in its dir). */
  url: string;
  /** Stops at once, as a crash would (pg_ctl -m immediate), then starts again. */
  crashAndStart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** The command prefix that runs a PostgreSQL binary: as the postgres user when this is root. */
function asServerUser(): string[] {
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
}

async function pgRun(args: string[]): Promise<void> {
  const prefix = asServerUser();
  const [command, ...rest] = [...prefix, ...args] as [string, ...string[]];
  await run(command, rest, { timeout: 60_000 });
}

/** A cluster of `t`'s own, stopped and removed when it ends; undefined (skipped) without one. */
export async function throwawayCluster(t: TestContext): Promise<Cluster | undefined> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-pg-cluster-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
    const uid = Number(stdout.trim());
    if (!uid) {
      t.skip('no postgres user to run a throwaway cluster as (this runs as root)');
      return undefined;
    }
    fs.chownSync(dir, uid, uid);
  }
  try {
    await pgRun(['initdb', '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    t.skip(`no throwaway PostgreSQL cluster: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
  const options = `-c listen_addresses= -c unix_socket_directories=${dir} -c fsync=off -p 5432`;
  const start = () =>
    pgRun(['pg_ctl', '-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
  const stop = (mode: string) => pgRun(['pg_ctl', '-D', data, '-m', mode, '-w', 'stop']);
  await start();
  t.after(async () => {
    await stop('immediate').catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`,
    async crashAndStart() {
      await stop('immediate');
      await start();
    },
    stop: () => stop('immediate'),
    start,
  };
}
