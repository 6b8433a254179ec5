// `mnemo serve` replicas on one PostgreSQL database, run from the built CLI (`npm run build`
// first): what one saves the other finds, touches through both count exactly, a replica killed
// with -9 leaves the other working, the database cut away and back (a restart, as the replicas see
// it) loses no answered save, and a database that cannot be used stops `serve` and `stdio` at start
// with one line. Skipped, saying why, where no PostgreSQL answers (but the closed port).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { pgSchema, proxyTo, TEST_DATABASE_URL, withSchema } from '../support-pg.js';
import { CLI_PATH, makeTempDir, removeDir } from './helpers.js';

const TOKEN = 'e2e-replicas-token-0123456789abcdef';
/** A call still unanswered after this hung: the test fails saying so. */
const CALL_TIMEOUT_MS = 20_000;
/** How long one replica may take to see what another wrote, or to come back. */
const DEADLINE_MS = 30_000;

interface Replica {
  name: string;
  url: URL;
  child: ChildProcess;
  /** Its log (pino lines at warn and above). */
  stderr(): string;
  running(): boolean;
  /** Its exit code once gone (null when a signal ended it). */
  exited: Promise<number | null>;
  /** SIGTERM, and its exit code once gone. */
  stop(): Promise<number | null>;
}

/** `mnemo serve --port 0` on `databaseUrl`, in a data dir of its own; killed when `t` ends. */
async function startReplica(t: TestContext, name: string, databaseUrl: string): Promise<Replica> {
  const dir = makeTempDir(`mnemo-${name}-`);
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--data-dir', dir], {
    env: {
      PATH: process.env.PATH ?? '',
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_EMBEDDINGS: 'off',
      MNEMO_AUTH_TOKEN: TOKEN,
      // The loads below call faster than the default 600 a minute.
      MNEMO_RATE_LIMIT: '0',
      MNEMO_DATABASE_URL: databaseUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.after(async () => {
    if (running()) child.kill('SIGKILL');
    await exited;
    removeDir(dir);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /mnemo serve: (http:\/\/\S+\/mcp)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`replica ${name} exited (${code}): ${stderr}`)));
  });
  return {
    name,
    url: new URL(url),
    child,
    stderr: () => stderr,
    running,
    exited,
    async stop() {
      if (running()) child.kill('SIGTERM');
      return exited;
    },
  };
}

interface Session {
  via: string;
  /** A tool call; rejects when the replica does not answer (gone, or CALL_TIMEOUT_MS). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** A call that must succeed: its structuredContent. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
}

/** An MCP client over HTTP with the token, to `replica`; closed when `t` ends. */
async function connect(t: TestContext, replica: Replica): Promise<Session> {
  const client = new Client({ name: `replicas-e2e-${replica.name}`, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(replica.url, {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  t.after(() => client.close().catch(() => {}));
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool(
      { name, arguments: args },
      {
        timeout: CALL_TIMEOUT_MS,
      },
    )) as CallToolResult;
  return {
    via: replica.name,
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      if (result.isError) {
        throw new Error(`${name} through ${replica.name} failed: ${textOf(result)}`);
      }
      return result.structuredContent as T;
    },
  };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
}

/** Polls `probe` until it answers something, failing after `ms` with `what`. */
async function eventually<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined>,
  ms = DEADLINE_MS,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`${typeof what === 'string' ? what : what()}: not within ${ms} ms`);
    }
    await sleep(20);
  }
}

interface Hit {
  memory_id: string;
  use_count: number;
}

/** The hit for memory `id` when searching `session` for `word`, if there is one. */
async function hitFor(session: Session, word: string, id: string): Promise<Hit | undefined> {
  const found = await session.ok<{ results: Hit[] }>('search_memory', { query: word, top_k: 50 });
  return found.results.find((r) => r.memory_id === id);
}

/** Waits until `session` finds memory `id` by `word`. */
function finds(session: Session, word: string, id: string): Promise<Hit> {
  return eventually(`${session.via} finds ${id} by "${word}"`, () => hitFor(session, word, id));
}

/** A word no other memory of the test has. */
const uniqueWord = (prefix: string) => `${prefix}${randomBytes(5).toString('hex')}`;

interface Saved {
  id: string;
  word: string;
  via: string;
}

describe('mnemo serve replicas on one PostgreSQL database', () => {
  it('what one replica saves the other finds, and touches through both count exactly', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const [a, b] = await Promise.all([startReplica(t, 'a', db.url), startReplica(t, 'b', db.url)]);
    const [viaA, viaB] = await Promise.all([connect(t, a), connect(t, b)]);

    const word = uniqueWord('harbour');
    const { memory_id: id } = await viaA.ok<{ memory_id: string }>('save_memory', {
      content: `the ferry to the ${word} leaves at seven`,
    });
    await finds(viaB, word, id);

    // Both at once, so that the two replicas' read-modify-writes of one record interleave.
    const N = 25;
    const touches = async (session: Session) => {
      for (let i = 0; i < N; i++) await session.ok('touch_memory', { memory_id: id });
    };
    await Promise.all([touches(viaA), touches(viaB)]);
    const rows = await db.query<{ use_count: number }>(
      'SELECT use_count FROM mnemo_memories WHERE id = $1',
      [id],
    );
    assert.deepEqual(rows, [{ use_count: 2 * N }], 'no touch lost to the other replica');
    for (const session of [viaA, viaB]) {
      await eventually(`${session.via} sees use_count ${2 * N}`, async () => {
        const hit = await hitFor(session, word, id);
        return hit?.use_count === 2 * N ? hit : undefined;
      });
    }
    assert.equal(await a.stop(), 0);
    assert.equal(await b.stop(), 0);
  });

  it('a replica killed with -9 in the middle of saves leaves the other answering, and loses no answered save', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const [a, b] = await Promise.all([startReplica(t, 'a', db.url), startReplica(t, 'b', db.url)]);
    const sessions = await Promise.all([
      connect(t, a),
      connect(t, a),
      connect(t, b),
      connect(t, b),
    ]);

    const KILL_AFTER = 40;
    const AFTER_KILL = 30;
    const savedA: Saved[] = [];
    const savedB: Saved[] = [];
    /** What failed that should not have: a save through B, or through A before the kill. */
    const failures: string[] = [];
    let cutOff = 0;
    let savedBAtKill = -1;
    let n = 0;
    const deadline = Date.now() + DEADLINE_MS;
    const done = () =>
      failures.length > 0 ||
      Date.now() > deadline ||
      (savedBAtKill >= 0 && savedB.length >= savedBAtKill + AFTER_KILL);
    const stream = async (session: Session) => {
      while (!done()) {
        const word = `stream${n++}x${randomBytes(3).toString('hex')}`;
        try {
          const r = await session.call('save_memory', { content: `saved in a stream: ${word}` });
          const id = (r.structuredContent as { memory_id?: string } | undefined)?.memory_id;
          if (r.isError || !id) throw new Error(textOf(r));
          (session.via === 'a' ? savedA : savedB).push({ id, word, via: session.via });
        } catch (error) {
          if (session.via === 'a' && savedBAtKill >= 0) {
            cutOff++; // A is gone: nothing more to send it.
          } else {
            failures.push(`through ${session.via}: ${(error as Error).message}`);
          }
          if (session.via === 'a') return;
        }
        if (session.via === 'a' && savedA.length >= KILL_AFTER && savedBAtKill < 0) {
          savedBAtKill = savedB.length;
          a.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(sessions.map(stream));
    assert.deepEqual(failures, [], 'every save through B, and through A until the kill, answered');
    assert.ok(savedBAtKill >= 0, 'A was killed');
    assert.equal(await a.exited, null, 'A died of the signal');
    assert.equal(a.child.signalCode, 'SIGKILL');
    assert.ok(b.running(), 'B still runs');
    assert.ok(savedB.length >= savedBAtKill + AFTER_KILL, 'B kept saving after A was killed');
    t.diagnostic(
      `${savedA.length} saves answered by A before it died (${cutOff} cut off), ${savedB.length} by B (${savedB.length - savedBAtKill} after the kill)`,
    );

    const stored = new Set(
      (await db.query<{ id: string }>('SELECT id FROM mnemo_memories')).map((r) => r.id),
    );
    for (const s of [...savedA, ...savedB]) assert.ok(stored.has(s.id), `${s.via}'s save ${s.id}`);
    const [viaB] = sessions.slice(2);
    for (const s of savedA) await finds(viaB as Session, s.word, s.id);
    assert.equal(await b.stop(), 0);
  });

  it('PostgreSQL cut away in the middle of a load: errors while it is down, no answered save lost, the replicas follow again', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const proxy = await proxyTo(t, db.url);
    const [a, b] = await Promise.all([
      startReplica(t, 'a', proxy.url),
      startReplica(t, 'b', proxy.url),
    ]);
    const sessions = await Promise.all([
      connect(t, a),
      connect(t, a),
      connect(t, b),
      connect(t, b),
    ]);

    type Phase = 'before' | 'outage' | 'after';
    let phase: Phase = 'before';
    let stop = false;
    const saved: (Saved & { started: Phase })[] = [];
    const errors: { text: string; via: string; started: Phase }[] = [];
    const unanswered: { message: string; via: string; started: Phase }[] = [];
    const perWorker = sessions.map(() => ({ errors: 0, savedAfter: 0 }));
    const load = async (session: Session, w: number) => {
      const mine = perWorker[w] as { errors: number; savedAfter: number };
      for (let i = 0; !stop; i++) {
        const started = phase;
        const word = `load${w}n${i}`;
        try {
          const r = await session.call('save_memory', {
            content: `saved under load through ${session.via}: ${word}`,
          });
          const id = (r.structuredContent as { memory_id?: string } | undefined)?.memory_id;
          if (!r.isError && id) {
            saved.push({ id, word, via: session.via, started });
            if (started === 'after') mine.savedAfter++;
          } else {
            errors.push({ text: textOf(r), via: session.via, started });
            mine.errors++;
          }
        } catch (error) {
          unanswered.push({ message: (error as Error).message, via: session.via, started });
          return;
        }
      }
    };
    const running = sessions.map(load);
    const why = () =>
      `${saved.length} saved, ${errors.length} errors, unanswered: ${JSON.stringify(unanswered)}\nA: ${a.stderr()}\nB: ${b.stderr()}`;

    await eventually(
      () => `20 saves before the cut (${why()})`,
      async () => (saved.length >= 20 ? true : undefined),
    );
    proxy.cut();
    phase = 'outage';
    // Down until every client was answered an error twice: both replicas, and for more than one
    // call of each (counted, not timed: a slow machine makes fewer calls in the same time).
    await eventually(
      () => `two errors for every client while down (${why()})`,
      async () => (perWorker.every((p) => p.errors >= 2) ? true : undefined),
    );
    proxy.restore();
    phase = 'after';
    await eventually(
      () => `saves through every client after the restore (${why()})`,
      async () => (perWorker.every((p) => p.savedAfter >= 5) ? true : undefined),
    );
    stop = true;
    await Promise.all(running);

    const ambiguous = errors.filter((e) => /may have been made/.test(e.text));
    t.diagnostic(
      `${saved.length} saves answered (${saved.filter((s) => s.started === 'after').length} after the restore), ${errors.length} errors while down (${ambiguous.length} "may have been made")`,
    );
    assert.deepEqual(unanswered, [], 'every call was answered: no crash, no hang');
    assert.ok(a.running() && b.running(), 'both replicas still run');
    for (const e of errors) {
      assert.match(
        e.text,
        /PostgreSQL cannot be reached, nothing was written: retry in a moment|it may have been made/,
      );
    }
    assert.deepEqual(
      errors.filter((e) => e.started === 'after'),
      [],
      'no error for a call made once the database was back',
    );

    const stored = new Set(
      (await db.query<{ id: string }>('SELECT id FROM mnemo_memories')).map((r) => r.id),
    );
    const lost = saved.filter((s) => !stored.has(s.id));
    assert.deepEqual(lost, [], 'every answered save is in mnemo_memories');

    // Nothing else writes now: only each replica's listener can bring it the other's next save.
    const [viaA, , viaB] = sessions as [Session, Session, Session, Session];
    const fromA = uniqueWord('lighthouse');
    const { memory_id: idA } = await viaA.ok<{ memory_id: string }>('save_memory', {
      content: `saved through A once the database was back: ${fromA}`,
    });
    await finds(viaB, fromA, idA);
    const fromB = uniqueWord('seagull');
    const { memory_id: idB } = await viaB.ok<{ memory_id: string }>('save_memory', {
      content: `saved through B once the database was back: ${fromB}`,
    });
    await finds(viaA, fromB, idB);
    // And each has every save the other answered, the outage's too.
    for (const s of saved) await finds(s.via === 'a' ? viaB : viaA, s.word, s.id);
    for (const r of [a, b]) {
      assert.match(r.stderr(), /lost the connection that follows the other replicas/, r.name);
    }
    assert.equal(await a.stop(), 0);
    assert.equal(await b.stop(), 0);
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `mnemo <command>` on `databaseUrl` until it exits by itself (stdin kept open, as a client does). */
function runUntilExit(
  t: TestContext,
  command: 'serve' | 'stdio',
  databaseUrl: string,
): Promise<Run> {
  const dir = makeTempDir(`mnemo-start-${command}-`);
  t.after(() => removeDir(dir));
  const args = [
    CLI_PATH,
    command,
    '--data-dir',
    dir,
    ...(command === 'serve' ? ['--port', '0'] : []),
  ];
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_EMBEDDINGS: 'off',
      MNEMO_DATABASE_URL: databaseUrl,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Both apps refuse `databaseUrl` at start: exit 1, one line naming MNEMO_DATABASE_URL, `reason`. */
async function refusedAtStart(
  t: TestContext,
  databaseUrl: string,
  reason: RegExp,
  password: string,
): Promise<void> {
  for (const command of ['serve', 'stdio'] as const) {
    const r = await runUntilExit(t, command, databaseUrl);
    const lines = r.stderr.split('\n').filter(Boolean);
    assert.equal(r.code, 1, `${command}: ${r.stderr}`);
    assert.equal(lines.length, 1, `${command}: one line: ${r.stderr}`);
    assert.match(lines[0] as string, /^mnemo: .*MNEMO_DATABASE_URL/, command);
    assert.match(lines[0] as string, reason, command);
    assert.ok(!r.stderr.includes(password), `${command}: the password is never printed`);
    assert.equal(r.stdout, '', `${command}: nothing on stdout, never announced`);
  }
}

describe('mnemo serve and mnemo stdio on a database they cannot use', () => {
  const password = `s3cret-${randomBytes(4).toString('hex')}`;

  it('stop at start with one line when nothing answers at the URL', async (t) => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await refusedAtStart(
      t,
      `postgres://mnemo:${password}@127.0.0.1:${port}/mnemo`,
      /nothing answers at 127\.0\.0\.1:\d+: start PostgreSQL there, or fix the host and port/,
      password,
    );
  });

  it('stop at start with one line for an unknown database, an unknown user, a user without CREATE on the schema', async (t) => {
    const db = await pgSchema(t);
    if (!db) return;
    const suffix = randomBytes(5).toString('hex');
    const withPassword = (url: string, user: string, database?: string) => {
      const parsed = new URL(url);
      parsed.username = user;
      parsed.password = password;
      if (database) parsed.pathname = `/${database}`;
      return parsed.toString();
    };
    const user = new URL(TEST_DATABASE_URL).username || 'postgres';

    await refusedAtStart(
      t,
      withPassword(db.url, user, `mnemo_e2e_nodb_${suffix}`),
      new RegExp(
        `database "mnemo_e2e_nodb_${suffix}" does not exist: create it \\(createdb NAME\\)`,
      ),
      password,
    );
    await refusedAtStart(
      t,
      withPassword(db.url, `mnemo_e2e_nobody_${suffix}`),
      new RegExp(
        `does not let this user in \\(role "mnemo_e2e_nobody_${suffix}" does not exist\\)`,
      ),
      password,
    );

    // A role that may log in and use a schema of postgres's, but not create in it.
    const role = `mnemo_e2e_role_${suffix}`;
    const schema = `t_${suffix}_nocreate`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    t.after(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
      await admin.end().catch(() => {});
    });
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`REVOKE CREATE ON SCHEMA ${schema} FROM ${role}`);
    await refusedAtStart(
      t,
      withPassword(withSchema(TEST_DATABASE_URL, schema), role),
      new RegExp(
        `lacks a right mnemo needs \\(permission denied for schema ${schema}\\): grant it CREATE and USAGE on the schema, or use the owner`,
      ),
      password,
    );
  });
});
