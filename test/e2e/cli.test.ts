import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ENGINES, engineAbsent, INITIALIZE_REQUEST } from '../support.js';
import {
  type ChildStorage,
  CLI_PATH,
  childStorage,
  makeTempDir,
  removeDir,
  startClient,
} from './helpers.js';

const T0 = '2026-01-01T00:00:00Z';

function mnemo(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI_PATH, ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: makeHome(),
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_EMBEDDINGS: 'off',
      ...env,
    },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const homes: string[] = [];
function makeHome(): string {
  const home = makeTempDir('mnemo-home-');
  homes.push(home);
  return home;
}
after(() => {
  for (const h of homes) removeDir(h);
});

// The commands that read and write memories run against both engines; the rest (arguments,
// settings, the data dir, stdout, signals) once, on the data dir.
for (const engine of ENGINES) {
  describe(`the mnemo command (${engine})`, { skip: await engineAbsent(engine) }, () => {
    let dir: string;
    let storage: ChildStorage;
    const ids: Record<string, string> = {};
    /** `mnemo` with the memories on this suite's engine. */
    const run = (args: string[], env: Record<string, string> = {}) =>
      mnemo(args, { ...storage.env, ...env });

    before(async () => {
      dir = makeTempDir();
      storage = await childStorage(engine);
      const c = await startClient(dir, { env: { ...storage.env, MNEMO_NOW: T0 } });
      try {
        for (const [key, content] of [
          ['ralph', 'Ralph is the family cat and sleeps on the red rug.'],
          ['wifi', 'The cabin wifi password is taped inside the fuse box.'],
          ['deploy', 'Deploys happen on Tuesdays after the standup.'],
        ] as const) {
          const saved = (await c.ok('save_memory', { content })) as { memory_id: string };
          ids[key] = saved.memory_id;
        }
        for (let i = 0; i < 6; i++) await c.ok('touch_memory', { memory_id: ids.deploy });
      } finally {
        await c.close();
      }
    });
    after(async () => {
      await storage.drop();
      removeDir(dir);
    });

    it('gc today forgets nothing; gc --at 60 days ahead lists the faded memories in a table', () => {
      const now = run(['gc', '--data-dir', dir, '--at', '2026-01-02']);
      assert.equal(now.code, 0, now.stderr);
      assert.match(now.stdout, /^Would forget 0 of 3 memories/m);

      const later = run(['gc', '--data-dir', dir, '--at', '2026-03-02']);
      assert.equal(later.code, 0, later.stderr);
      const lines = later.stdout.trim().split('\n');
      assert.match(lines[0] ?? '', /^ID\s+AGE\s+SCORE\s+PREVIEW\s+WOULD$/);
      const rows = lines.slice(1, -1);
      assert.equal(rows.length, 2);
      assert.ok(
        rows.some(
          (r) =>
            r.startsWith(ids.ralph ?? '?') &&
            r.includes('60d') &&
            r.includes('Ralph is the family cat') &&
            r.endsWith('forget'),
        ),
      );
      assert.ok(rows.some((r) => r.startsWith(ids.wifi ?? '?')));
      assert.ok(!later.stdout.includes(ids.deploy ?? '?'), 'the well-used memory stays');
      assert.match(
        lines.at(-1) ?? '',
        /^Would forget 2 of 3 memories \(score below 0\.05 at 2026-03-02 00:00 UTC\)\. Run `mnemo gc --apply` to do it\.$/,
      );

      // How the flags read, whatever keeps the memories: once.
      if (engine === 'jsonl') {
        const explicit = run(['gc', '--dry-run', '--data-dir', dir, '--at', '20260302']);
        assert.equal(
          explicit.stdout,
          later.stdout,
          '--dry-run and the compact date give the same dry run',
        );
        const both = run(['gc', '--dry-run', '--apply', '--data-dir', dir]);
        assert.equal(both.code, 2);
        assert.match(both.stderr, /--apply and --dry-run contradict each other/);
      }

      const json = run(['gc', '--data-dir', dir, '--at', '2026-03-02', '--json']);
      const parsed = JSON.parse(json.stdout) as { dry_run: boolean; total_affected: number };
      assert.equal(parsed.dry_run, true);
      assert.equal(parsed.total_affected, 2);
      assert.equal(
        run(['stats', '--data-dir', dir, '--json']).stdout.includes('"total": 3'),
        true,
        'the dry runs forgot nothing',
      );
    });

    it('search, stats, gc --apply and restore', () => {
      const found = run(['search', 'who', 'is', 'ralph?', '--data-dir', dir, '--at', '2026-01-02']);
      assert.equal(found.code, 0, found.stderr);
      assert.ok(found.stdout.includes(ids.ralph ?? '?'));
      assert.match(found.stdout, /1 of 1 matches/);

      const stats = run(['stats', '--data-dir', dir, '--at', '2026-01-02']);
      assert.equal(stats.code, 0);
      assert.match(stats.stdout, /memories\s+3 \(3 active, 0 promoted, 0 archived\)/);
      assert.match(stats.stdout, /promotable\s+1/);
      // The memories are where this suite says: the test of one engine is not the other's.
      assert.match(
        stats.stdout,
        engine === 'postgres' ? /^on disk\s+mnemo_memories /m : /^on disk\s+memories\.jsonl /m,
      );

      const applied = run([
        'gc',
        '--apply',
        '--limit',
        '1',
        '--data-dir',
        dir,
        '--at',
        '2026-03-02',
      ]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /Forgot 1 of 3 memories/);
      const forgottenId = applied.stdout.split('\n')[1]?.split(/\s+/)[0] ?? '';
      assert.ok([ids.ralph, ids.wifi].includes(forgottenId));
      assert.match(run(['stats', '--data-dir', dir, '--json']).stdout, /"total": 2/);

      const restored = run(['restore', forgottenId, '--data-dir', dir, '--at', '2026-03-02']);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(restored.stdout.trim(), `${forgottenId} is active.`);
      const json = run(['restore', forgottenId, '--json', '--data-dir', dir]);
      assert.deepEqual(JSON.parse(json.stdout), { memory_id: forgottenId, status: 'active' });
      assert.match(run(['stats', '--data-dir', dir, '--json']).stdout, /"total": 3/);

      const missing = run(['restore', 'no-such-id', '--data-dir', dir]);
      assert.equal(missing.code, 1);
      assert.match(
        missing.stderr,
        /memory_id "no-such-id" is neither a live memory nor a forgotten one/,
      );
    });

    // Not about the memories: once, on the data dir.
    if (engine === 'jsonl') {
      it('--version and --help', () => {
        const version = mnemo(['--version']);
        assert.equal(version.code, 0);
        const pkg = JSON.parse(
          fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
        );
        assert.equal(version.stdout.trim(), pkg.version);
        const help = mnemo(['--help']);
        assert.equal(help.code, 0);
        for (const command of ['stdio', 'gc', 'search', 'stats', 'restore', '--data-dir', '--at']) {
          assert.ok(help.stdout.includes(command), `help mentions ${command}`);
        }
        const bare = mnemo([]);
        assert.equal(bare.code, 2);
        const unknown = mnemo(['frobnicate']);
        assert.equal(unknown.code, 2);
        assert.match(unknown.stderr, /unknown command "frobnicate"/);
        const badFlag = mnemo(['gc', '--nope']);
        assert.equal(badFlag.code, 2);
      });

      it('bad settings and an unusable data dir give one clear line and exit 1', () => {
        const model = mnemo(['stats', '--data-dir', dir], { MNEMO_DECAY_MODEL: 'linear' });
        assert.equal(model.code, 1);
        assert.equal(model.stdout, '');
        assert.match(
          model.stderr,
          /MNEMO_DECAY_MODEL must be one of power_law, exponential, two_component \(got "linear"\)/,
        );

        const halfLife = mnemo(['stats', '--data-dir', dir], { MNEMO_HALFLIFE_DAYS: 'soon' });
        assert.equal(halfLife.code, 1);
        assert.match(halfLife.stderr, /MNEMO_HALFLIFE_DAYS must be/);

        const at = mnemo(['gc', '--data-dir', dir, '--at', 'next friday']);
        assert.equal(at.code, 1);
        assert.match(at.stderr, /--at must be epoch seconds or an ISO date/);

        const file = path.join(dir, 'memories.jsonl');
        const blocked = mnemo(['stats', '--data-dir', path.join(file, 'sub')]);
        assert.equal(blocked.code, 1);
        assert.match(blocked.stderr, /cannot use the data dir .*--data-dir or MNEMO_DATA_DIR/);

        const unreadable = makeHome();
        fs.mkdirSync(path.join(unreadable, 'memories.jsonl'));
        const broken = mnemo(['stats', '--data-dir', unreadable]);
        assert.equal(broken.code, 1);
        assert.match(
          broken.stderr,
          /^mnemo: cannot load the data dir .*EISDIR.*--data-dir or MNEMO_DATA_DIR\n$/,
        );
      });

      it('uses MNEMO_DATA_DIR, then XDG_DATA_HOME/mnemo', () => {
        const xdg = makeHome();
        const viaXdg = mnemo(['stats'], { XDG_DATA_HOME: xdg });
        assert.equal(viaXdg.code, 0, viaXdg.stderr);
        assert.ok(viaXdg.stdout.includes(path.join(xdg, 'mnemo')));
        assert.ok(fs.statSync(path.join(xdg, 'mnemo')).isDirectory());
        const viaEnv = mnemo(['stats'], { MNEMO_DATA_DIR: dir, XDG_DATA_HOME: xdg });
        assert.match(viaEnv.stdout, /memories\s+3/);
      });

      it('mnemo stdio writes only protocol messages to stdout, logs to stderr', async () => {
        const child = spawn(process.execPath, [CLI_PATH, 'stdio', '--data-dir', dir], {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: makeHome(),
            MNEMO_LOG_LEVEL: 'debug',
            MNEMO_EMBEDDINGS: 'off',
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
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
        send(INITIALIZE_REQUEST);
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'search_memory', arguments: { query: 'ralph' } },
        });
        await new Promise<void>((resolve) => {
          const check = () =>
            stdout.split('\n').filter(Boolean).length >= 2 ? resolve() : undefined;
          child.stdout.on('data', check);
          check();
        });
        child.stdin.end();
        assert.equal(await exited, 0, 'stdio exits cleanly when its input ends');
        const lines = stdout.split('\n').filter(Boolean);
        for (const line of lines)
          assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0');
        assert.match(stderr, /mnemo stdio ready/);
      });

      it('mnemo stdio stops on SIGTERM with its input still open: exit 0, the save kept', async () => {
        const own = makeHome();
        const child = spawn(process.execPath, [CLI_PATH, 'stdio', '--data-dir', own], {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: own,
            MNEMO_LOG_LEVEL: 'warn',
            MNEMO_EMBEDDINGS: 'off',
          },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        let stdout = '';
        const answered = new Promise<void>((resolve) => {
          child.stdout.on('data', (d: Buffer) => {
            stdout += d.toString();
            if (stdout.includes('"id":2')) resolve();
          });
        });
        const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
        send(INITIALIZE_REQUEST);
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'save_memory', arguments: { content: 'Saved just before SIGTERM.' } },
        });
        await answered;
        child.kill('SIGTERM');
        assert.equal(await exited, 0);
        const id = /"memory_id":"([^"]+)"/.exec(stdout)?.[1] ?? '?';
        assert.ok(fs.readFileSync(path.join(own, 'memories.jsonl'), 'utf8').includes(id));
      });
    }
  });
}

for (const engine of ENGINES) {
  describe(`mnemo promote and mnemo vault init (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let dir: string;
    let storage: ChildStorage;
    let deploy: string;
    /** Where JSONL has its vault by default: PostgreSQL has none unless told. */
    const vault = (): Record<string, string> =>
      engine === 'postgres' ? { MNEMO_VAULT_DIR: path.join(dir, 'vault') } : {};
    /** `mnemo` with the memories on this suite's engine, and a vault. */
    const run = (args: string[], env: Record<string, string> = {}) =>
      mnemo(args, { ...storage.env, ...vault(), ...env });
    before(async () => {
      dir = makeTempDir();
      storage = await childStorage(engine);
      const c = await startClient(dir, { env: { ...storage.env, MNEMO_NOW: T0 } });
      try {
        const saved = (await c.ok('save_memory', {
          content: 'Deploys happen on Tuesdays after the standup.',
          tags: ['work'],
        })) as { memory_id: string };
        deploy = saved.memory_id;
        await c.ok('save_memory', { content: 'Used once and never again.' });
        for (let i = 0; i < 5; i++) await c.ok('touch_memory', { memory_id: deploy });
      } finally {
        await c.close();
      }
    });
    after(async () => {
      await storage.drop();
      removeDir(dir);
    });

    it('is a dry run that says why each candidate qualifies, until --apply', () => {
      const env = { MNEMO_NOW: T0 };
      const dry = run(['promote', '--data-dir', dir], env);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /^ID\s+SCORE\s+USES\s+AGE\s+WHY\s+PREVIEW\n/);
      assert.ok(dry.stdout.includes(deploy));
      assert.match(dry.stdout, /with 5 uses/);
      assert.match(dry.stdout, /1 memory qualifies for the vault\. Run `mnemo promote --apply`/);
      assert.ok(!fs.existsSync(path.join(dir, 'vault')));
      // Sixty days later the same memory has faded below the promotion rules.
      const later = run(['promote', '--data-dir', dir, '--at', '2026-03-02'], env);
      assert.match(later.stdout, /^0 memories qualify for the vault\.\n$/);

      const applied = run(['promote', '--apply', '--data-dir', dir], env);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /mnemo\/deploys-happen-on-tuesdays-after-the-standup\.md/);
      assert.match(applied.stdout, /Promoted 1 of 1 to /);
      const note = fs.readFileSync(
        path.join(dir, 'vault/mnemo/deploys-happen-on-tuesdays-after-the-standup.md'),
        'utf8',
      );
      assert.match(note, new RegExp(`\nmemory_id: ${deploy}\n`));
      assert.ok(fs.existsSync(path.join(dir, 'vault/.obsidian/app.json')));
      const stats = run(['stats', '--data-dir', dir], env);
      assert.match(stats.stdout, /memories\s+2 \(1 active, 1 promoted, 0 archived\)/);
    });

    it("a memory that does not qualify is refused with the fix in the terminal's words (--force)", () => {
      const once = run(['search', 'used once', '--json', '--data-dir', dir], { MNEMO_NOW: T0 });
      const [hit] = (JSON.parse(once.stdout) as { results: { memory_id: string }[] }).results;
      assert.ok(hit);
      const refused = run(['promote', hit.memory_id, '--data-dir', dir], { MNEMO_NOW: T0 });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /does not qualify for promotion yet .*mnemo promote ID --force/);
    });

    // Not about the memories: once.
    if (engine === 'jsonl') {
      it('vault init makes a vault from the template, and keeps an existing one', () => {
        const target = path.join(dir, 'MyVault');
        const made = mnemo(['vault', 'init', target, '--data-dir', dir]);
        assert.equal(made.code, 0, made.stderr);
        assert.match(made.stdout, /Made a vault at .*MyVault from the template/);
        assert.match(made.stdout, /Set MNEMO_VAULT_DIR=/);
        assert.ok(fs.existsSync(path.join(target, 'Start here.md')));
        assert.ok(fs.statSync(path.join(target, 'mnemo')).isDirectory());
        fs.writeFileSync(path.join(target, 'Start here.md'), 'my own words');
        const again = mnemo(['vault', 'init', target, '--data-dir', dir]);
        assert.match(again.stdout, /already holds files: used as it is/);
        assert.equal(fs.readFileSync(path.join(target, 'Start here.md'), 'utf8'), 'my own words');
        const bad = mnemo(['vault', 'init', target, '--data-dir', dir], {
          MNEMO_VAULT_FOLDER: '../x',
        });
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /MNEMO_VAULT_FOLDER must be a folder name inside the vault/);
        const usage = mnemo(['vault', 'open']);
        assert.equal(usage.code, 2);
      });

      it('vault init refuses a folder that a link leads out of the vault, and makes nothing there', () => {
        const target = path.join(dir, 'LinkedVault');
        const outside = path.join(dir, 'Elsewhere');
        fs.mkdirSync(target);
        fs.mkdirSync(outside);
        fs.symlinkSync(outside, path.join(target, 'notes'));
        const linked = mnemo(['vault', 'init', target, '--data-dir', dir], {
          MNEMO_VAULT_FOLDER: 'notes/mnemo',
        });
        assert.equal(linked.code, 1, linked.stdout);
        assert.match(
          linked.stderr,
          /^mnemo: MNEMO_VAULT_FOLDER "notes\/mnemo" leads out of the vault .*set MNEMO_VAULT_FOLDER to a folder inside the vault/,
        );
        assert.equal(linked.stdout, '');
        assert.deepEqual(fs.readdirSync(outside), []);
      });
    }
  });
}
