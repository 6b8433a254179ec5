import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { UsageError } from '../../src/cli/command.js';
import { main, report } from '../../src/cli/main.js';
import { ConfigError } from '../../src/config/index.js';
import { LockLostError, LockTimeoutError } from '../../src/platform/dir-lock.js';
import { UserError } from '../../src/platform/errors.js';
import { StoreError } from '../../src/storage/errors.js';
import { WriteError } from '../../src/storage/jsonl/jsonl-file.js';
import { JsonlStore } from '../../src/storage/jsonl/store.js';
import { newMemoryRecord } from '../../src/storage/records.js';
import { HttpError } from '../../src/transport/http-error.js';
import { VaultPathError } from '../../src/vault/paths.js';
import { VaultWriteError } from '../../src/vault/writer.js';
import { makeTempDir, removeDir } from '../e2e/helpers.js';
import { sink } from '../support.js';

function reported(error: unknown, env: Record<string, string> = {}) {
  const stderr = sink();
  const code = report(error, { env, stderr });
  return { code, stderr: stderr.text() };
}

describe('report: the CLI edge maps an error to a message and an exit code once', () => {
  it('a usage error: exit 2, with a pointer to --help', () => {
    assert.deepEqual(reported(new UsageError('restore needs the ID of a memory')), {
      code: 2,
      stderr: 'mnemo: restore needs the ID of a memory\nRun mnemo --help for usage.\n',
    });
  });

  it('every user error: exit 1, its message on one line, never a stack', () => {
    const errors: UserError[] = [
      new UserError('a field is wrong', 'field'),
      new ConfigError('MNEMO_HALFLIFE_DAYS must be above 0, e.g. 3'),
      new StoreError('cannot use the data dir /d: permission denied (EACCES)'),
      new LockTimeoutError('the data dir /d is busy: retry in a moment'),
      new LockLostError('the lock of /d is no longer this process’s: Retry'),
      new WriteError('could not write to /d/memories.jsonl (ENOSPC): nothing was written', true),
      new VaultWriteError('cannot write to the vault at /v/n.md (permission denied)'),
      new VaultPathError('"../x.md" is outside the vault /v'),
      new HttpError(403, 'this Host is not allowed: add it to MNEMO_ALLOWED_HOSTS'),
    ];
    for (const error of errors) {
      assert.ok(error instanceof UserError, error.name);
      assert.deepEqual(
        reported(error, { MNEMO_LOG_LEVEL: 'debug' }),
        { code: 1, stderr: `mnemo: ${error.message}\n` },
        error.name,
      );
    }
  });

  it('anything else: exit 1 and one line; the stack only at debug or trace', () => {
    const error = new TypeError('x is not a function');
    assert.deepEqual(reported(error), { code: 1, stderr: 'mnemo: x is not a function\n' });
    assert.equal(
      reported(error, { MNEMO_LOG_LEVEL: 'info' }).stderr,
      'mnemo: x is not a function\n',
    );
    for (const level of ['debug', 'trace']) {
      const { code, stderr } = reported(error, { MNEMO_LOG_LEVEL: level });
      assert.equal(code, 1);
      assert.ok(stderr.startsWith('mnemo: x is not a function\nTypeError: x is not a function\n'));
    }
    assert.deepEqual(reported('a string'), { code: 1, stderr: 'mnemo: a string\n' });
    assert.deepEqual(reported(undefined), { code: 1, stderr: 'mnemo: undefined\n' });
  });
});

describe('main: errors on the way to a command', () => {
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    const stdout = sink();
    const stderr = sink();
    const code = await main(argv, { env, stdout, stderr });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it('an unknown flag or command is a usage error: exit 2', async () => {
    const flag = await run(['stats', '--no-such-flag']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^mnemo: .*--no-such-flag.*\nRun mnemo --help for usage\.\n$/);
    const command = await run(['frobnicate']);
    assert.deepEqual(
      [command.code, command.stderr],
      [2, 'mnemo: unknown command "frobnicate"\nRun mnemo --help for usage.\n'],
    );
  });

  it('a flag or a word the command does not take is a usage error, before anything is opened', async () => {
    const dir = makeTempDir();
    after(() => removeDir(dir));
    // `gc --apply --tags work` must not forget every candidate, whatever its tags.
    for (const [argv, named] of [
      [['gc', '--apply', '--tags', 'work'], /gc does not take --tags/],
      [['promote', '--apply', '--limit', '1'], /promote does not take --limit/],
      [['stats', '--port', '9000'], /stats does not take --port/],
      [['restore', 'id-1', 'id-2'], /restore takes one ID/],
      [['gc', 'apply'], /gc takes no words .*"apply"/],
      [['reindex', 'all'], /reindex takes no words/],
      // A server's namespace is each request's token's; reindex acts on every namespace.
      [['serve', '--namespace', 'work'], /serve does not take --namespace/],
      [['reindex', '--namespace', 'work'], /reindex does not take --namespace/],
    ] as const) {
      const refused = await run([...argv, '--data-dir', dir]);
      assert.equal(refused.code, 2, argv.join(' '));
      assert.match(refused.stderr, named);
      assert.match(refused.stderr, /\nRun mnemo --help for usage\.\n$/);
      assert.equal(refused.stdout, '');
    }
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing was opened');
    // What every command takes is still taken.
    const ok = await run([
      'stats',
      '--json',
      '--at',
      '2026-01-01',
      '--data-dir',
      path.join(dir, 'd'),
    ]);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('mnemo search refuses what search_memory refuses, naming the flag: not "no match"', async () => {
    const dir = makeTempDir();
    after(() => removeDir(dir));
    const bad = await run(['search', 'ralph', '--tags', 'bad tag', '--data-dir', dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^mnemo: --tags has an invalid tag "bad tag": use 1 to 64 of /);
    assert.equal(bad.stdout, '');
    const long = await run(['search', 'x'.repeat(20_000), '--data-dir', dir]);
    assert.equal(long.code, 2);
    assert.match(long.stderr, /^mnemo: QUERY is longer than/);
    const good = await run(['search', 'ralph', '--tags', 'home,pets', '--data-dir', dir]);
    assert.deepEqual([good.code, good.stdout], [0, 'No memory matches.\n']);
  });

  it('a bad setting: exit 1, the message naming the variable, nothing on stdout', async () => {
    const bad = await run(['stats'], { MNEMO_HALFLIFE_DAYS: 'three' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^mnemo: MNEMO_HALFLIFE_DAYS must be a number: set days, e\.g\. 3\n$/);
    assert.equal(bad.stdout, '');
  });
});

describe('main: the namespace of a command', () => {
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    const stdout = sink();
    const stderr = sink();
    const code = await main(argv, { env, stdout, stderr });
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  };

  it('--namespace, else MNEMO_NAMESPACE, else default; a bad name names the variable', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-cli-ns-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const store = await JsonlStore.open({
      dataDir: dir,
      logger: pino({ level: 'silent' }),
      clock: () => 1_767_225_600,
    });
    const save = (ns: string, id: string) =>
      store.namespace(ns).transact(() => ({
        result: null,
        memories: [newMemoryRecord(id, `orchard apples of ${ns}`, 1_767_225_600)],
      }));
    await save('default', 'd1');
    await save('work', 'w1');
    await save('work', 'w2');
    store.close();
    const env = { MNEMO_DATA_DIR: dir, MNEMO_EMBEDDINGS: 'off', MNEMO_NOW: '1767225600' };
    const total = async (argv: string[], more: Record<string, string> = {}) => {
      const answer = await run(['stats', '--json', ...argv], { ...env, ...more });
      assert.equal(answer.code, 0, answer.stderr);
      return (JSON.parse(answer.stdout) as { total: number }).total;
    };
    assert.equal(await total([]), 1);
    assert.equal(await total(['--namespace', 'work']), 2);
    assert.equal(await total([], { MNEMO_NAMESPACE: 'work' }), 2);
    assert.equal(await total(['--namespace', 'default'], { MNEMO_NAMESPACE: 'work' }), 1);
    assert.equal(await total(['--namespace', 'empty']), 0);
    const search = await run(['search', 'orchard', '--json', '--namespace', 'work'], env);
    assert.equal(search.code, 0, search.stderr);
    assert.doesNotMatch(search.stdout, /of default/);
    assert.match(search.stdout, /of work/);
    const bad = await run(['stats', '--namespace', 'Not/This'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^mnemo: --namespace must be 1 to 64 of a-z/);
    const badEnv = await run(['stats'], { ...env, MNEMO_NAMESPACE: 'Not/This' });
    assert.equal(badEnv.code, 1);
    assert.match(badEnv.stderr, /^mnemo: MNEMO_NAMESPACE must be 1 to 64 of a-z/);
  });
});
