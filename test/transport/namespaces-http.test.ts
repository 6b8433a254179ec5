import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Request } from 'express';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { chosenNamespace } from '../../src/transport/callers.js';
import { createHttpApp } from '../../src/transport/http.js';
import { listen, type RunningHttp } from '../../src/transport/listen.js';
import { parseTokenFile, TokenFileError } from '../../src/transport/tokens.js';
import {
  ENGINES,
  engineAbsent,
  errorText,
  INITIALIZE_REQUEST,
  openTestMemory,
  type TestMemory,
  tempDir,
} from '../support.js';

const DEFAULT_TOKEN = 'default-token-0123456789abcdef';
const TOKEN_A = 'token-of-a-0123456789abcdef';
const TOKEN_B = 'token-of-b-0123456789abcdef';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const UNKNOWN_CLUSTER = 'c-000000000000';

function post(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE_REQUEST));
  });
}

/**
 * What namespace `ns` holds in the storage itself, as it was written: its lines of the JSONL logs
 * (append-only: a write of any kind adds one), or its rows of the PostgreSQL tables and change
 * sequence (each write adds a change).
 */
async function storedIn(t: TestMemory, ns: string): Promise<Record<string, unknown[]>> {
  const db = t.database;
  if (db) {
    const rows = (table: string, order: string) =>
      db.query(`SELECT * FROM ${table} WHERE namespace = $1 ORDER BY ${order}`, [ns]);
    return {
      memories: await rows('mnemo_memories', 'id'),
      relations: await rows('mnemo_relations', 'id'),
      forgotten: await rows('mnemo_forgotten', 'seq'),
      changes: await rows('mnemo_changes', 'seq'),
    };
  }
  const lines = (file: string) => {
    const at = path.join(t.dir, file);
    if (!fs.existsSync(at)) return [];
    return fs
      .readFileSync(at, 'utf8')
      .split('\n')
      .filter((line) => line.includes(`"namespace":"${ns}"`));
  };
  return {
    memories: lines('memories.jsonl'),
    relations: lines('relations.jsonl'),
    forgotten: lines('forgotten.jsonl'),
  };
}

for (const engine of ENGINES) {
  describe(`namespaces over HTTP: the token decides (${engine})`, {
    skip: await engineAbsent(engine),
  }, () => {
    let t: TestMemory;
    let vaultDir: string;
    let server: RunningHttp;
    const logged: string[] = [];
    const clients: Client[] = [];

    before(async () => {
      const dir = tempDir();
      // A vault on PostgreSQL too: b's promoted note is one more thing a must not see.
      vaultDir = path.join(dir, 'vault');
      t = await openTestMemory({ MNEMO_EMBEDDINGS: 'static', MNEMO_VAULT_DIR: vaultDir }, dir, {
        engine,
      });
      await t.opened.readiness.wait('store');
      // Saves embed at once: b's near duplicates make a cluster.
      await t.opened.readiness.wait('embeddings');
      const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) });
      const app = createHttpApp({
        createMcpServer: (namespace) =>
          createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
        authToken: DEFAULT_TOKEN,
        tokens: parseTokenFile(`${TOKEN_A} a\n${TOKEN_B} b,shared\n`, 'tokens.txt'),
        allowedHosts: [],
        bodyLimit: '64kb',
        logger,
        health: () => ({ status: 'ok' }),
      });
      server = await listen(app, '127.0.0.1', 0);
    });
    after(async () => {
      for (const client of clients) await client.close();
      await server.close(100);
      await t.close();
    });

    async function connect(token: string, namespace?: string, via: 'header' | 'query' = 'header') {
      const url = new URL(`${server.url}/mcp`);
      const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
      if (namespace !== undefined && via === 'header') headers['X-Mnemo-Namespace'] = namespace;
      if (namespace !== undefined && via === 'query') url.searchParams.set('namespace', namespace);
      const client = new Client({ name: 'ns-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      clients.push(client);
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const ok = async <T = Record<string, unknown>>(name: string, args = {}) => {
        const result = await call(name, args);
        if (result.isError) throw new Error(`${name}: ${errorText(result)}`);
        return result.structuredContent as T;
      };
      return { client, call, ok };
    }

    it("a token for a never reads, writes or counts b's memories, by any tool it lists", async () => {
      // b: a memory faded by now (gc would forget it), one forgotten (restore would bring it
      // back), one well used (promotable), its near duplicate (a cluster), a promoted one (a
      // note) and a relation.
      const b = await connect(TOKEN_B);
      const save = async (content: string) =>
        (await b.ok<{ memory_id: string }>('save_memory', { content })).memory_id;
      const faded = await save('the harbour bell was recast in the winter of 1890');
      t.clock.advanceDays(60);
      const keeper = await save('the lighthouse keeper feeds the gulls at dawn');
      const twin = await save('the lighthouse keeper feeds the gulls at dawn every day');
      const noted = await save('gulls nest on the cliff below the lighthouse');
      const gone = await save('the ferry timetable changes in october');
      for (let i = 0; i < 5; i++) await b.ok('touch_memory', { memory_id: keeper });
      const { relation_id: bRelation } = await b.ok<{ relation_id: string }>('create_relation', {
        from_memory_id: keeper,
        to_memory_id: noted,
        relation_type: 'related',
      });
      // An earlier version: restore_memory of it is one more way in.
      await b.ok('update_memory', { memory_id: twin, tags: ['sea'] });
      await b.ok('promote_memory', { memory_id: noted, dry_run: false, force: true });
      await b.ok('delete_memory', { memory_id: gone });
      const bIds = [faded, keeper, twin, noted, gone];
      const bWords = ['harbour', 'lighthouse', 'gulls', 'ferry'];
      // What a would see if anything leaked: b itself sees it (else the test proves nothing).
      const bGc = await b.ok<{ memory_ids: string[] }>('gc', { dry_run: true });
      assert.ok(bGc.memory_ids.includes(faded));
      const bCandidates = await b.ok<{ candidates: { memory_id: string }[] }>('promote_memory', {
        auto_detect: true,
        dry_run: true,
      });
      assert.ok(bCandidates.candidates.some((c) => c.memory_id === keeper));
      const bClusters = await b.ok<{ clusters: { id: string }[] }>('cluster_memories', {
        find_duplicates: true,
      });
      const bCluster = bClusters.clusters[0]?.id;
      assert.ok(bCluster, 'b has a cluster');
      const bConsolidations = await b.ok<{ consolidations: unknown[] }>('consolidate_memories', {
        auto_detect: true,
        mode: 'preview',
      });
      assert.ok(bConsolidations.consolidations.length > 0);
      const bUnified = await b.ok<{ results: unknown[] }>('search_unified', {
        query: 'lighthouse',
      });
      assert.ok(bUnified.results.length > 0);
      /**
       * What b is told of its memories. Not store_bytes: the JSONL engine counts the files while b
       * is the only namespace in them, b's own records' bytes once a has some too.
       */
      const bAnswers = async () => {
        const { store_bytes, ...stats } = await b.ok('memory_stats');
        return [await b.ok('open_memories', { memory_ids: bIds }), stats];
      };
      const bBefore = await bAnswers();
      const bStored = await storedIn(t, 'b');
      assert.ok(bStored.memories?.length && bStored.forgotten?.length, 'b is in storage');

      const a = await connect(TOKEN_A);
      const { tools } = await a.client.listTools();
      const called = new Set<string>();
      /** Until a saves a copy of b's text, none of b's words may reach it either. */
      let wordsAreB = true;
      /**
       * Every call of a: nothing in its answer names a memory of b, but for the ids it asked
       * about (an error echoes them).
       */
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        called.add(name);
        const result = await a.call(name, args);
        let text = JSON.stringify([result.content, result.structuredContent ?? null]);
        for (const asked of JSON.stringify(args).match(/[0-9a-f-]{36}|c-[0-9a-f]{12}/g) ?? []) {
          text = text.replaceAll(asked, '<asked>');
        }
        for (const id of [...bIds, bCluster]) assert.ok(!text.includes(id), `${name}: ${text}`);
        if (wordsAreB) {
          for (const word of bWords) assert.ok(!text.includes(word), `${name}: ${text}`);
        }
        return result;
      };
      const ok = async <T = Record<string, unknown>>(
        name: string,
        args: Record<string, unknown> = {},
      ) => {
        const result = await call(name, args);
        assert.notEqual(result.isError, true, `${name}: ${errorText(result)}`);
        return result.structuredContent as T;
      };
      /** The call about one of b's, answered as about an id no namespace has. */
      const sameAsUnknown = async (
        name: string,
        args: (id: string) => Record<string, unknown>,
        theirId: string,
        unknown = UNKNOWN,
      ) => {
        const theirs = await call(name, args(theirId));
        const nobody = await call(name, args(unknown));
        assert.equal(theirs.isError, nobody.isError, name);
        const shape = (r: CallToolResult, id: string) =>
          JSON.stringify([errorText(r), r.structuredContent ?? null]).replaceAll(id, '<id>');
        assert.equal(shape(theirs, theirId), shape(nobody, unknown), name);
      };

      // a holds nothing yet: every read and count answers nothing, every bulk write does nothing.
      const stats = await ok<Record<string, unknown>>('memory_stats');
      assert.equal(stats.total, 0);
      assert.equal(stats.relations, 0);
      assert.equal(stats.gc_candidates, 0);
      assert.equal(stats.promotion_candidates, 0);
      assert.deepEqual(stats.by_status, { active: 0, promoted: 0, archived: 0, superseded: 0 });
      assert.equal(stats.danger_zone_count, 0);
      const { vectors, backlog } = stats.embeddings as { vectors: number; backlog: number };
      assert.deepEqual([vectors, backlog], [0, 0]);
      for (const bytes of Object.values(stats.store_bytes as Record<string, number>)) {
        assert.equal(bytes, 0);
      }
      for (const query of ['lighthouse gulls', 'harbour bell', 'ferry timetable']) {
        const search = await ok<{ results: unknown[]; total: number }>('search_memory', {
          query,
        });
        assert.deepEqual([search.results, search.total], [[], 0]);
        const unified = await ok<{ results: unknown[] }>('search_unified', { query });
        assert.deepEqual(unified.results, []);
      }
      const gcDry = await ok<{ total_affected: number }>('gc', { dry_run: true });
      assert.equal(gcDry.total_affected, 0);
      const gcDone = await ok<{ removed_count: number }>('gc', { dry_run: false });
      assert.equal(gcDone.removed_count, 0);
      for (const dry_run of [true, false]) {
        const promoted = await ok<{ candidates_found: number; promoted_count: number }>(
          'promote_memory',
          { auto_detect: true, dry_run },
        );
        assert.deepEqual([promoted.candidates_found, promoted.promoted_count], [0, 0]);
      }
      const clusters = await ok<{ clusters: unknown[] }>('cluster_memories', {
        find_duplicates: true,
      });
      assert.deepEqual(clusters.clusters, []);
      for (const mode of ['preview', 'apply', 'link']) {
        const consolidated = await ok<{ consolidations: unknown[] }>('consolidate_memories', {
          auto_detect: true,
          mode,
        });
        assert.deepEqual(consolidated.consolidations, []);
      }
      await sameAsUnknown(
        'consolidate_memories',
        (id) => ({ cluster_id: id, mode: 'apply' }),
        bCluster,
        UNKNOWN_CLUSTER,
      );
      const byId: [string, (id: string) => Record<string, unknown>][] = [
        ['open_memories', (id) => ({ memory_ids: [id] })],
        ['touch_memory', (id) => ({ memory_id: id, boost_strength: true })],
        ['observe_memory_usage', (id) => ({ memory_ids: [id], context_tags: ['x'] })],
        ['promote_memory', (id) => ({ memory_id: id, dry_run: false, force: true })],
        ['archive_memory', (id) => ({ memory_id: id })],
        ['delete_memory', (id) => ({ memory_id: id })],
        ['restore_memory', (id) => ({ memory_id: id })],
        ['restore_memory', (id) => ({ memory_id: id, version: 1 })],
        ['update_memory', (id) => ({ memory_id: id, content: 'changed from a' })],
      ];
      for (const [name, args] of byId) {
        for (const id of bIds) await sameAsUnknown(name, args, id);
      }
      await sameAsUnknown('delete_relation', (id) => ({ relation_id: id }), bRelation);
      const graph = await ok<{ memories: unknown[]; relations: unknown[]; next_cursor: unknown }>(
        'read_graph',
      );
      assert.deepEqual([graph.memories, graph.relations, graph.next_cursor], [[], [], null]);

      // a writes its own: the same text as b's is a memory of a's, near nothing of b's.
      wordsAreB = false;
      const copy = await ok<{ memory_id: string; deduplicated: boolean; similar_to: unknown[] }>(
        'save_memory',
        { content: 'the lighthouse keeper feeds the gulls at dawn' },
      );
      assert.ok(!bIds.includes(copy.memory_id));
      assert.equal(copy.deduplicated, false);
      assert.deepEqual(copy.similar_to, []);
      const relate = (from: string, to: string) => ({
        from_memory_id: from,
        to_memory_id: to,
        relation_type: 'related',
      });
      for (const id of bIds) {
        await sameAsUnknown('create_relation', (x) => relate(copy.memory_id, x), id);
        await sameAsUnknown('create_relation', (x) => relate(x, copy.memory_id), id);
        const settle = (x: string) => ({ memory_id: copy.memory_id, other_id: x, keep: 'both' });
        await sameAsUnknown('settle_conflict', settle, id);
      }
      const found = await ok<{ results: { memory_id: string }[] }>('search_memory', {
        query: 'lighthouse gulls',
      });
      assert.deepEqual(
        found.results.map((r) => r.memory_id),
        [copy.memory_id],
      );
      const own = await ok<{ total: number; relations: number }>('memory_stats');
      assert.deepEqual([own.total, own.relations], [1, 0]);
      const ownGraph = await ok<{ memories: { id: string }[] }>('read_graph', { limit: 200 });
      assert.deepEqual(
        ownGraph.memories.map((m) => m.id),
        [copy.memory_id],
      );

      // Every tool a is offered was called, and b is as it was: in what it answers and in storage.
      assert.deepEqual([...called].sort(), tools.map((tool) => tool.name).sort());
      assert.deepEqual(await bAnswers(), bBefore);
      assert.deepEqual(await storedIn(t, 'b'), bStored);
      // The default token's namespace sees neither.
      const d = await connect(DEFAULT_TOKEN);
      const dStats = await d.ok<{ total: number }>('memory_stats');
      assert.equal(dStats.total, 0);
    });

    it("a token for a never reads, lists or completes b's memories or notes by resources or prompts", async () => {
      const b = await connect(TOKEN_B);
      const { memory_id: quince } = await b.ok<{ memory_id: string }>('save_memory', {
        content: 'the orchard quince ripens in late autumn',
      });
      await b.ok('promote_memory', { memory_id: quince, dry_run: false, force: true });
      const bIds = (
        await b.ok<{ memories: { id: string }[] }>('read_graph', { limit: 200 })
      ).memories.map((m) => m.id);
      const bNotes = fs
        .readdirSync(path.join(vaultDir, 'mnemo', 'b'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `mnemo/b/${name}`);
      const note = bNotes.find((notePath) =>
        fs.readFileSync(path.join(vaultDir, notePath), 'utf8').includes('quince'),
      ) as string;
      assert.ok(bIds.includes(quince) && note, 'b has memories and a note');
      // b itself reads, lists and completes them (else the test proves nothing).
      await b.client.readResource({ uri: `mnemo://memory/${quince}` });
      assert.match(
        (
          (await b.client.readResource({ uri: `mnemo://vault/${note}` })).contents[0] as {
            text: string;
          }
        ).text,
        /quince/,
      );
      const bListed = JSON.stringify(await b.client.listResources());
      assert.ok(bListed.includes(quince));
      const bCompleted = await b.client.complete({
        ref: { type: 'ref/resource', uri: 'mnemo://memory/{id}' },
        argument: { name: 'id', value: quince.slice(0, 4) },
      });
      assert.ok(bCompleted.completion.values.includes(quince));

      const a = await connect(TOKEN_A);
      const secrets = [...bIds, ...bNotes, 'quince', 'orchard'];
      /** Nothing a is answered names b's memories, notes or words (but the ids it asked about). */
      const clean = (what: string, answer: unknown, ...asked: string[]) => {
        let text = JSON.stringify(answer);
        for (const echo of asked) text = text.replaceAll(echo, '<asked>');
        for (const secret of secrets) assert.ok(!text.includes(secret), `${what}: ${text}`);
        return text;
      };
      /** The error of a call (or 'answered'), with `asked` in it made anonymous. */
      const outcome = async (call: Promise<unknown>, asked: string) => {
        try {
          clean('answer', await call, asked);
          return 'answered';
        } catch (error) {
          assert.ok(error instanceof ProtocolError, String(error));
          return clean('error', { code: error.code, message: error.message }, asked).replaceAll(
            '<asked>',
            '',
          );
        }
      };

      const listed = await a.client.listResources();
      clean('resources/list', listed);
      assert.equal(listed.nextCursor, undefined);
      const stats = JSON.parse(
        ((await a.client.readResource({ uri: 'mnemo://stats' })).contents[0] as { text: string })
          .text,
      ) as { total: number };
      clean('mnemo://stats', stats);
      const review = await a.client.readResource({ uri: 'mnemo://review' });
      clean('mnemo://review', review);
      for (const topic of ['quince', 'orchard autumn', 'lighthouse']) {
        clean(
          'mnemo://context',
          await a.client.readResource({
            uri: `mnemo://context?topic=${encodeURIComponent(topic)}`,
          }),
          // The pack's title and URI echo the topic asked for.
          encodeURIComponent(topic),
          topic,
        );
        clean('recall', await a.client.getPrompt({ name: 'recall', arguments: { topic } }), topic);
      }
      clean('recall', await a.client.getPrompt({ name: 'recall', arguments: {} }));
      clean('review', await a.client.getPrompt({ name: 'review', arguments: {} }));
      // b's memory reads as an id nobody has, b's note as a path with no note.
      for (const id of bIds) {
        assert.equal(
          await outcome(a.client.readResource({ uri: `mnemo://memory/${id}` }), id),
          await outcome(a.client.readResource({ uri: `mnemo://memory/${UNKNOWN}` }), UNKNOWN),
        );
      }
      const missing = 'mnemo/b/no-such-note.md';
      for (const notePath of bNotes) {
        const theirs = await outcome(
          a.client.readResource({ uri: `mnemo://vault/${notePath}` }),
          notePath,
        );
        assert.notEqual(theirs, 'answered');
        assert.equal(
          theirs,
          await outcome(a.client.readResource({ uri: `mnemo://vault/${missing}` }), missing),
        );
      }
      // Completions: no id of b's for any prefix of it, no note of b's folder.
      for (const id of bIds) {
        for (const value of [id.slice(0, 1), id.slice(0, 4), id]) {
          clean(
            'complete id',
            await a.client.complete({
              ref: { type: 'ref/resource', uri: 'mnemo://memory/{id}' },
              argument: { name: 'id', value },
            }),
          );
        }
      }
      // Neither a nor the default token's namespace (whose notes are the vault's but for the
      // other namespaces' folders) completes a note of b's folder.
      const d = await connect(DEFAULT_TOKEN);
      for (const client of [a.client, d.client]) {
        for (const value of ['', 'mnemo/', 'mnemo/b/', note.slice(0, -3)]) {
          clean(
            'complete path',
            await client.complete({
              ref: { type: 'ref/resource', uri: 'mnemo://vault/{+path}' },
              argument: { name: 'path', value },
            }),
          );
        }
      }
      clean('resources/list (default)', await d.client.listResources());
      assert.equal(
        await outcome(d.client.readResource({ uri: `mnemo://vault/${note}` }), note),
        await outcome(d.client.readResource({ uri: `mnemo://vault/${missing}` }), missing),
      );
    });

    it('a token picks among its namespaces by header or query; its first by default', async () => {
      const shared = await connect(TOKEN_B, 'shared', 'query');
      await shared.ok('save_memory', { content: 'kept in shared' });
      const viaHeader = await connect(TOKEN_B, 'shared');
      assert.equal((await viaHeader.ok<{ total: number }>('memory_stats')).total, 1);
      const first = await connect(TOKEN_B);
      const found = await first.ok<{ results: unknown[] }>('search_memory', { query: 'shared' });
      assert.deepEqual(found.results, []);
    });

    it('a namespace the token does not hold: 403, the same answer whether it exists or not', async () => {
      const asked = async (token: string, ns: string, via: 'header' | 'query') =>
        post(via === 'query' ? `${server.url}/mcp?namespace=${ns}` : `${server.url}/mcp`, {
          authorization: `Bearer ${token}`,
          ...(via === 'header' ? { 'x-mnemo-namespace': ns } : {}),
        });
      for (const via of ['header', 'query'] as const) {
        const existing = await asked(TOKEN_A, 'b', via);
        const missing = await asked(TOKEN_A, 'nobody-has-this', via);
        const invalid = await asked(TOKEN_A, 'NOT A NAME', via);
        assert.equal(existing.status, 403);
        assert.equal(missing.body, existing.body);
        assert.equal(invalid.body, existing.body);
        assert.deepEqual([missing.status, invalid.status], [403, 403]);
        // The default token holds the default namespace only.
        assert.equal((await asked(DEFAULT_TOKEN, 'a', via)).status, 403);
      }
      const twice = await post(`${server.url}/mcp?namespace=a&namespace=b`, {
        authorization: `Bearer ${TOKEN_A}`,
      });
      assert.equal(twice.status, 400);
      const noToken = await post(`${server.url}/mcp`, { 'x-mnemo-namespace': 'a' });
      assert.equal(noToken.status, 401);
      const wrong = await post(`${server.url}/mcp`, {
        authorization: 'Bearer not-a-token-0123456789',
        'x-mnemo-namespace': 'a',
      });
      assert.equal(wrong.status, 401);
      for (const token of [DEFAULT_TOKEN, TOKEN_A, TOKEN_B]) {
        assert.ok(!logged.some((line) => line.includes(token)), 'a token is never logged');
      }
    });
  });
}

describe('namespaces over HTTP without a token (a loopback server)', () => {
  it('the default namespace only: another name is a 403 saying how, a bad name a 400', async () => {
    const t = await openTestMemory();
    const app = createHttpApp({
      createMcpServer: (namespace) =>
        createServer({ memory: t.opened.memoryFor(namespace), logger: t.logger }),
      allowedHosts: [],
      bodyLimit: '64kb',
      logger: pino({ level: 'silent' }),
      health: () => ({ status: 'ok' }),
    });
    const server = await listen(app, '127.0.0.1', 0);
    try {
      assert.equal((await post(`${server.url}/mcp`, {})).status, 200);
      assert.equal((await post(`${server.url}/mcp?namespace=default`, {})).status, 200);
      assert.equal(
        (await post(`${server.url}/mcp`, { 'x-mnemo-namespace': 'default' })).status,
        200,
      );
      // Anyone on the machine can call a loopback server: no namespace is opened, or made, by name.
      for (const asked of [
        post(`${server.url}/mcp?namespace=x`, {}),
        post(`${server.url}/mcp`, { 'x-mnemo-namespace': 'work' }),
      ]) {
        const answer = await asked;
        assert.equal(answer.status, 403);
        assert.match(JSON.parse(answer.body).error.message, /default namespace only.*MNEMO_TOKENS/);
      }
      assert.equal((await post(`${server.url}/mcp`, { 'x-mnemo-namespace': 'Bad!' })).status, 400);
    } finally {
      await server.close(100);
      await t.close();
    }
  });
});

describe('the token file', () => {
  it('reads lines (comments and blank lines skipped) and JSON', () => {
    const lines = parseTokenFile(
      `# agents\n\n${TOKEN_A} a\n${TOKEN_B}   b,shared  # two of them\n`,
      'tokens.txt',
    );
    assert.deepEqual(lines, [
      { token: TOKEN_A, namespaces: ['a'] },
      { token: TOKEN_B, namespaces: ['b', 'shared'] },
    ]);
    const json = parseTokenFile(
      JSON.stringify({ [TOKEN_A]: ['a'], [TOKEN_B]: 'b,shared' }),
      'tokens.json',
    );
    assert.deepEqual(json, lines);
  });

  it('a token of a thousand namespaces: each one served, none beside them, the list fixed', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `t${i}`);
    const [grant] = parseTokenFile(`${TOKEN_A} ${names.join(',')}\n`, 'tokens.txt');
    assert.ok(grant && Object.isFrozen(grant.namespaces));
    const ask = (ns: string) =>
      chosenNamespace(
        { headers: { 'x-mnemo-namespace': ns }, query: {} } as unknown as Request,
        grant?.namespaces,
      );
    for (const ns of ['t0', 't500', 't999']) assert.equal(ask(ns), ns);
    for (const ns of ['t1000', 'default', 'T1']) {
      assert.throws(
        () => ask(ns),
        (e: { status?: number }) => e.status === 403,
      );
    }
  });

  it('a bad file: an error naming MNEMO_TOKENS, the line and the fix, never the token', () => {
    const cases: [string, RegExp][] = [
      [`${TOKEN_A} a\nshort a\n`, /MNEMO_TOKENS \(t\), line 2: a token must be 16 or more/],
      [`${TOKEN_A}\n`, /line 1: expected a token and its namespaces, found 1 field/],
      [`${TOKEN_A} a b\n`, /line 1: expected a token and its namespaces, found 3 field/],
      [`\n${TOKEN_A} a,Bad\n`, /line 2: "Bad" is not a namespace name/],
      [`${TOKEN_A} a\n${TOKEN_A} b\n`, /line 2: this token is given twice/],
      ['# nothing\n', /the whole file: no token in it/],
      ['{"oops"', /its JSON: it cannot be read/],
      [JSON.stringify({ [TOKEN_A]: [] }), /entry 1: no namespace/],
      [JSON.stringify({ [TOKEN_A]: ['a'], [TOKEN_B]: [7] }), /entry 2: 7 is not a namespace/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseTokenFile(text, 't'),
        (error: Error) => {
          assert.ok(error instanceof TokenFileError);
          assert.match(error.message, message);
          assert.match(error.message, /write one "<token> <namespace>/);
          assert.ok(!error.message.includes(TOKEN_A) && !error.message.includes(TOKEN_B));
          return true;
        },
      );
    }
  });
});
