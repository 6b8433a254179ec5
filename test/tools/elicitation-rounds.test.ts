// The 2026-07-28 rounds of save_memory's question: the state that carries the save to the
// answer is signed, so the answer may come to another server of the namespace (HTTP serves each
// request with a pooled one) but not with a changed state, other arguments or another key. And
// the whole path over HTTP as `mnemo serve` wires it: a 2026-07-28 client is asked, a 2025 one
// (stateless, JSON answers: no request can reach it) gets the review queue.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it, type TestContext } from 'node:test';
import type { CallToolResult, ElicitRequestFormParams } from '@modelcontextprotocol/client';
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import pino from 'pino';
import { createServeApp } from '../../src/app/http.js';
import { loadConfig } from '../../src/config/index.js';
import type { AskedPerson } from '../../src/contract/save-memory.js';
import { createServer } from '../../src/server.js';
import { ruleJudge } from '../memory/fact-rules.js';
import { openTestMemory, T0, type TestMemory, tempDir } from '../support.js';

interface Saved {
  memory_id: string;
  deduplicated: boolean;
  conflicts: { memory_id: string }[];
  asked?: AskedPerson;
}

interface InputRequired {
  resultType: 'input_required';
  requestState: string;
  inputRequests: Record<string, { method: string }>;
}

const MANUAL = { allowInputRequired: true } as never;
const NEW_HOLDS = { which_holds: { action: 'accept', content: { pair_1: 'new' } } };

/** A 2026-07-28 client that fulfils nothing itself, on its own server over `t`'s memory. */
async function manualClient(t: TestContext, memory: TestMemory, key: Uint8Array) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    () => createServer({ memory: memory.memory, logger: memory.logger, asking: { key } }),
    { transport: serverSide },
  );
  const client = new Client(
    { name: 'rounds-test', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(clientSide);
  t.after(async () => {
    await client.close();
    await handle.close();
  });
  const save = (content: string, retry: Record<string, unknown> = {}) =>
    client.callTool({ name: 'save_memory', arguments: { content }, ...retry } as never, MANUAL);
  return { save };
}

async function firstRound(t: TestContext) {
  const memory = await openTestMemory({}, undefined, { judgeFacts: ruleJudge });
  t.after(() => memory.close());
  const key = new Uint8Array(32).fill(1);
  const a = await manualClient(t, memory, key);
  const older = ((await a.save('Ivan likes chess.')).structuredContent as unknown as Saved)
    .memory_id;
  const question = (await a.save('Ivan hates chess.')) as unknown as InputRequired;
  assert.equal(question.resultType, 'input_required');
  assert.equal(question.inputRequests.which_holds?.method, 'elicitation/create');
  const newer = [...memory.store.memories.values()].find((m) => m.content === 'Ivan hates chess.');
  assert.equal(newer?.status, 'active', 'saved before the person is asked');
  const pairs = async () =>
    (await memory.memory.conflicts.open(10)).map((p) => [p.first.memory_id, p.second.memory_id]);
  return { memory, key, question, older, newer: newer.id, pairs };
}

/** The state with its payload's answer window moved on, its signature kept. */
function tampered(state: string): string {
  const [version, body, mac] = state.split('.');
  const decoded = JSON.parse(Buffer.from(body ?? '', 'base64url').toString()) as {
    p: { asked_at: number };
  };
  assert.equal(version, 'v1');
  assert.equal(typeof decoded.p.asked_at, 'number');
  decoded.p.asked_at += 3_600;
  return [version, Buffer.from(JSON.stringify(decoded)).toString('base64url'), mac].join('.');
}

describe('save_memory on 2026-07-28: the answer round', () => {
  it('another server of the namespace, with the same key, takes the answer', async (t) => {
    const { memory, key, question, older, newer } = await firstRound(t);
    const b = await manualClient(t, memory, key);
    const answered = await b.save('Ivan hates chess.', {
      inputResponses: NEW_HOLDS,
      requestState: question.requestState,
    });
    const saved = answered.structuredContent as unknown as Saved;
    assert.equal(saved.memory_id, newer);
    assert.deepEqual(saved.asked?.settled, [{ memory_id: older, keep: 'new', merged_id: null }]);
    assert.equal(memory.store.memories.get(older)?.status, 'superseded');
  });

  const refused: [string, (state: string) => string, string, Uint8Array?][] = [
    ['a changed state', tampered, 'Ivan hates chess.'],
    ['other arguments', (s) => s, 'Ivan hates chess!'],
    ['a server of another key', (s) => s, 'Ivan hates chess.', new Uint8Array(32).fill(2)],
  ];
  for (const [what, change, content, otherKey] of refused) {
    it(`${what}: the answer is not applied, the call is a save like any other`, async (t) => {
      const { memory, key, question, newer, pairs } = await firstRound(t);
      const b = await manualClient(t, memory, otherKey ?? key);
      const result = (await b.save(content, {
        inputResponses: NEW_HOLDS,
        requestState: change(question.requestState),
      })) as CallToolResult;
      assert.equal(result.isError, undefined);
      const saved = result.structuredContent as unknown as Saved;
      assert.equal(saved.asked, undefined);
      if (content === 'Ivan hates chess.') {
        assert.equal(saved.memory_id, newer);
        assert.equal(saved.deduplicated, true);
      }
      assert.ok(
        (await pairs()).some(([first]) => first === newer),
        'the pair is still queued',
      );
    });
  }

  it('an answer given twice settles once', async (t) => {
    const { memory, key, question, older } = await firstRound(t);
    const b = await manualClient(t, memory, key);
    const retry = { inputResponses: NEW_HOLDS, requestState: question.requestState };
    await b.save('Ivan hates chess.', retry);
    const again = (await b.save('Ivan hates chess.', {
      ...retry,
      inputResponses: { which_holds: { action: 'accept', content: { pair_1: 'old' } } },
    })) as CallToolResult;
    assert.equal(again.isError, undefined);
    assert.equal((again.structuredContent as unknown as Saved).asked?.answer, 'unanswered');
    assert.equal(memory.store.memories.get(older)?.status, 'superseded');
  });
});

describe('save_memory asks over HTTP as mnemo serve wires it', () => {
  const TOKEN = 'ask-token-0123456789abcdef';
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  async function serve(): Promise<string> {
    const dir = tempDir();
    const config = loadConfig({
      env: {
        MNEMO_EMBEDDINGS: 'off',
        MNEMO_DATA_DIR: dir,
        MNEMO_HTTP_PORT: '0',
        MNEMO_AUTH_TOKEN: TOKEN,
      },
      home: dir,
    });
    const app = createServeApp(config, { logger: pino({ level: 'silent' }), clock: () => T0 });
    const { url } = await app.start();
    stops.push(async () => {
      await app.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return url;
  }

  async function connect(url: string, modern: boolean) {
    const client = new Client(
      { name: 'ask-http-test', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      },
    );
    const questions: ElicitRequestFormParams[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push(request.params as ElicitRequestFormParams);
      return { action: 'accept', content: { pair_1: 'new' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    stops.unshift(() => client.close());
    const save = async (content: string) =>
      (await client.callTool({ name: 'save_memory', arguments: { content } })) as CallToolResult;
    return { client, questions, save };
  }

  it('a 2026-07-28 client is asked, and its answer settles the pair', async () => {
    const url = await serve();
    const c = await connect(url, true);
    const older = (await c.save('I love coffee.')).structuredContent as unknown as Saved;
    const saved = (await c.save('I hate coffee.')).structuredContent as unknown as Saved;
    assert.deepEqual(
      saved.conflicts.map((m) => m.memory_id),
      [older.memory_id],
    );
    assert.equal(c.questions.length, 1);
    assert.deepEqual(saved.asked?.settled, [
      { memory_id: older.memory_id, keep: 'new', merged_id: null },
    ]);
    const found = await c.client.callTool({
      name: 'search_memory',
      arguments: { query: 'coffee' },
    });
    const ids = (found.structuredContent as { results: { memory_id: string }[] }).results.map(
      (r) => r.memory_id,
    );
    assert.deepEqual(ids, [saved.memory_id]);
  });

  it('a 2025 client, though it declares elicitation, is not asked: the review queue', async () => {
    const url = await serve();
    const c = await connect(url, false);
    await c.save('I love tea.');
    const result = await c.save('I hate tea.');
    const saved = result.structuredContent as unknown as Saved;
    assert.equal(saved.conflicts.length, 1);
    assert.equal(saved.asked, undefined);
    assert.equal(c.questions.length, 0);
    const review = await c.client.readResource({ uri: 'mnemo://review' });
    const queue = JSON.parse((review.contents[0] as { text: string }).text) as {
      conflicts: unknown[];
    };
    assert.equal(queue.conflicts.length, 1);
  });
});
