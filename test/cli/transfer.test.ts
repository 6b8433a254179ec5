// mnemo import and mnemo export as a person runs them (through main), and the file the
// server-memory export writes opened by a real @modelcontextprotocol/server-memory process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { main } from '../../src/cli/main.js';
import { sink, T0, testDir } from '../support.js';

async function run(dataDir: string, argv: string[]) {
  const stdout = sink();
  const stderr = sink();
  const env = {
    MNEMO_LOG_LEVEL: 'silent',
    MNEMO_EMBEDDINGS: 'off',
    MNEMO_DATA_DIR: dataDir,
    MNEMO_NOW: String(T0),
  };
  const code = await main(argv, { env, stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const GRAPH = [
  {
    type: 'entity',
    name: 'Dana',
    entityType: 'person',
    observations: ['Dana prefers morning meetings', 'Dana leads the search team'],
  },
  {
    type: 'entity',
    name: 'Search',
    entityType: 'team',
    observations: ['Search ships on Tuesdays'],
  },
  { type: 'relation', from: 'Dana', to: 'Search', relationType: 'leads' },
];

describe('mnemo import and mnemo export', () => {
  it('imports a server-memory file, prints the summary, and a second run skips it all', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'memory.jsonl');
    fs.writeFileSync(file, GRAPH.map((g) => JSON.stringify(g)).join('\n'));
    const data = path.join(dir, 'data');
    const dry = await run(data, ['import', file, '--from', 'server-memory', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Dry run: nothing written/);
    assert.match(dry.stdout, /would import\s+3 memories, 1 relations/);
    const first = await run(data, ['import', file, '--from', 'server-memory']);
    assert.match(first.stdout, /imported\s+3 memories, 1 relations/);
    const second = await run(data, ['import', file, '--from', 'server-memory', '--json']);
    const summary = JSON.parse(second.stdout) as { imported: number; skipped_existing: number };
    assert.deepEqual([summary.imported, summary.skipped_existing], [0, 4]);
    const found = await run(data, ['search', 'morning', 'meetings']);
    assert.match(found.stdout, /Dana prefers morning meetings/);
  });

  it('refuses what it cannot do with a usage line, and writes nothing', async (t) => {
    const dir = testDir(t);
    const data = path.join(dir, 'data');
    const cases: [string[], RegExp][] = [
      [['import', dir], /import needs --from: one of server-memory, markdown, cortexgraph, mnemo/],
      [['import', dir, '--from', 'notion'], /--from notion is not a format mnemo imports/],
      [['import', '--from', 'markdown'], /import needs the PATH to read/],
      [['export', '--format', 'csv'], /--format csv is not a format mnemo exports/],
      [['export', '--format', 'markdown'], /give the folder with --out/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(data, argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.match(result.stderr, message);
    }
    const taken = path.join(dir, 'taken.jsonl');
    fs.writeFileSync(taken, 'mine\n');
    const refused = await run(data, ['export', '--out', taken]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--out .*taken\.jsonl exists: give a new file name/);
    assert.equal(fs.readFileSync(taken, 'utf8'), 'mine\n', 'never written over');
    const wrong = await run(data, ['import', taken, '--from', 'server-memory']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /is not a server-memory file/);
  });

  it('export --out never writes through a link: one at --out is a name taken, one at the old temp name is not followed', async (t) => {
    const dir = testDir(t);
    const data = path.join(dir, 'data');
    const victim = path.join(dir, 'authorized_keys');
    fs.writeFileSync(victim, 'ssh-ed25519 the owner\n');
    const nowhere = path.join(dir, 'made-through-a-link');
    for (const [name, to] of [
      ['to-a-file.jsonl', victim],
      ['to-nowhere.jsonl', nowhere],
    ] as const) {
      const out = path.join(dir, name);
      fs.symlinkSync(to, out);
      const refused = await run(data, ['export', '--out', out]);
      assert.equal(refused.code, 1, name);
      assert.match(refused.stderr, /exists: give a new file name/, name);
    }
    assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 the owner\n');
    assert.equal(fs.existsSync(nowhere), false, 'nothing made where a link points');

    const out = path.join(dir, 'export.jsonl');
    fs.symlinkSync(victim, path.join(dir, `.export.jsonl.${process.pid}.tmp`));
    const exported = await run(data, ['export', '--out', out]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'ssh-ed25519 the owner\n');
    assert.equal(fs.lstatSync(out).isFile(), true);
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((n) => n.startsWith('.export.jsonl.') && n !== `.export.jsonl.${process.pid}.tmp`),
      [],
      'no temp file left',
    );
  });

  it('a real server-memory process opens the exported file and answers read_graph with it', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'memory.jsonl');
    fs.writeFileSync(file, GRAPH.map((g) => JSON.stringify(g)).join('\n'));
    const data = path.join(dir, 'data');
    await run(data, ['import', file, '--from', 'server-memory']);
    const out = path.join(dir, 'exported.jsonl');
    const exported = await run(data, ['export', '--format', 'server-memory', '--out', out]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /Exported namespace default \(3 memories, 1 relations\)/);

    const require = createRequire(import.meta.url);
    const serverMemory = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [serverMemory],
      env: { MEMORY_FILE_PATH: out, PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'mnemo-test', version: '0.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    const result = await client.callTool({ name: 'read_graph', arguments: {} });
    const graph = (result.structuredContent ??
      JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}')) as {
      entities: { name: string; entityType: string; observations: string[] }[];
      relations: { from: string; to: string; relationType: string }[];
    };
    assert.deepEqual(
      graph.entities,
      GRAPH.filter((g) => g.type === 'entity').map(({ type: _, ...e }) => e),
    );
    assert.deepEqual(graph.relations, [{ from: 'Dana', to: 'Search', relationType: 'leads' }]);
  });

  it('mnemo export to a file, then import into another data dir, gives the same records', async (t) => {
    const dir = testDir(t);
    const file = path.join(dir, 'memory.jsonl');
    fs.writeFileSync(file, GRAPH.map((g) => JSON.stringify(g)).join('\n'));
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    await run(a, ['import', file, '--from', 'server-memory']);
    const out = path.join(dir, 'a.mnemo.jsonl');
    assert.equal((await run(a, ['export', '--out', out])).code, 0);
    const imported = await run(b, ['import', out, '--from', 'mnemo']);
    assert.match(imported.stdout, /imported\s+3 memories, 1 relations/);
    const back = path.join(dir, 'b.mnemo.jsonl');
    await run(b, ['export', '--out', back]);
    const body = (f: string) => fs.readFileSync(f, 'utf8').split('\n').slice(1).sort();
    assert.deepEqual(body(back), body(out));
  });
});
