// save_memory asking the person which memory holds (form elicitation), through the SDK's own
// client: before 2026-07-28 as an elicitation/create request on the connection, on 2026-07-28 as
// an input-required answer the client fulfils and calls again with. Each answer is checked in
// the store; every way of not getting one leaves the pair in the review queue.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type {
  CallToolResult,
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitResult,
} from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { AskedPerson } from '../../src/contract/save-memory.js';
import { createServer } from '../../src/server.js';
import { ANSWER_WITHIN_MS } from '../../src/tools/ask-person.js';
import { ruleJudge } from '../memory/fact-rules.js';
import { openTestMemory, type TestMemory } from '../support.js';

type Era = 'legacy' | 'modern';
const ERAS: readonly Era[] = ['legacy', 'modern'];
const FORM: ClientCapabilities = { elicitation: { form: {} } };

interface Saved {
  memory_id: string;
  conflicts: { memory_id: string; content: string }[];
  asked?: AskedPerson;
}

type Answer = (params: ElicitRequestFormParams, t: TestMemory) => Promise<ElicitResult>;

interface Linked extends TestMemory {
  client: Client;
  /** The questions the client was asked. */
  questions: ElicitRequestFormParams[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

async function link(
  t: TestContext,
  era: Era,
  options: { capabilities?: ClientCapabilities; answer?: Answer; answerWithinMs?: number } = {},
): Promise<Linked> {
  const memory = await openTestMemory({}, undefined, { judgeFacts: ruleJudge });
  const factory = () =>
    createServer({
      memory: memory.memory,
      logger: memory.logger,
      asking: { answerWithinMs: options.answerWithinMs ?? ANSWER_WITHIN_MS },
    });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let stop: () => Promise<void>;
  if (era === 'modern') {
    const handle = serveStdio(factory, { transport: serverSide });
    stop = () => handle.close();
  } else {
    const server = factory();
    await server.connect(serverSide);
    stop = () => server.close();
  }
  const client = new Client(
    { name: 'elicitation-test', version: '1' },
    {
      capabilities: options.capabilities ?? FORM,
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const questions: ElicitRequestFormParams[] = [];
  const answer = options.answer;
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as ElicitRequestFormParams;
      questions.push(params);
      return answer(params, memory);
    });
  }
  await client.connect(clientSide);
  t.after(async () => {
    await client.close();
    await stop();
    await memory.close();
  });
  return {
    ...memory,
    client,
    questions,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

const textOf = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

const accept =
  (content: Record<string, string>): Answer =>
  async () => ({ action: 'accept', content });

/** Saves a memory, then one that contradicts it; the second save's answer and the pair's ids. */
async function contradict(c: Linked) {
  const liked = await c.call('save_memory', { content: 'Ivan likes chess.' });
  const older = (liked.structuredContent as unknown as Saved).memory_id;
  const result = await c.call('save_memory', { content: 'Ivan hates chess.' });
  assert.equal(result.isError, undefined, textOf(result));
  const saved = result.structuredContent as unknown as Saved;
  assert.deepEqual(
    saved.conflicts.map((m) => m.memory_id),
    [older],
  );
  return { result, saved, newer: saved.memory_id, older };
}

const statusOf = (c: Linked, id: string) => c.store.memories.get(id)?.status;
const openPairs = async (c: Linked) =>
  (await c.memory.conflicts.open(10)).map((p) => [p.first.memory_id, p.second.memory_id]);

for (const era of ERAS) {
  describe(`save_memory asks which holds (${era === 'modern' ? '2026-07-28' : 'before 2026-07-28'})`, () => {
    it('the new one holds: the earlier one is superseded by it, and the question shows only the texts', async (t) => {
      const c = await link(t, era, { answer: accept({ pair_1: 'new' }) });
      const { result, saved, newer, older } = await contradict(c);
      assert.deepEqual(saved.asked, {
        answer: 'settled',
        settled: [{ memory_id: older, keep: 'new', merged_id: null }],
      });
      assert.equal(statusOf(c, older), 'superseded');
      assert.equal(c.store.memories.get(older)?.superseded_by, newer);
      assert.deepEqual(await openPairs(c), []);
      assert.match(
        textOf(result),
        new RegExp(`Saved as ${newer}\\..*the person chose: ${older} is superseded by it`),
      );

      assert.equal(c.questions.length, 1);
      const question = c.questions[0] as ElicitRequestFormParams;
      assert.match(question.message, /New: "Ivan hates chess\."/);
      const field = question.requestedSchema.properties.pair_1 as {
        title: string;
        oneOf: { const: string }[];
      };
      assert.equal(field.title, 'Earlier: "Ivan likes chess."');
      assert.deepEqual(
        field.oneOf.map((o) => o.const),
        ['new', 'old', 'both', 'merge'],
      );
      const shown = JSON.stringify(question);
      assert.ok(!shown.includes(c.dir), 'no path of the server in the question');
      assert.ok(!shown.includes(older) && !shown.includes(newer), 'no ids in the question');
    });

    it('the earlier one holds: the new one is superseded by it', async (t) => {
      const c = await link(t, era, { answer: accept({ pair_1: 'old' }) });
      const { saved, newer, older } = await contradict(c);
      assert.equal(saved.asked?.settled[0]?.keep, 'old');
      assert.equal(statusOf(c, newer), 'superseded');
      assert.equal(c.store.memories.get(newer)?.superseded_by, older);
      assert.equal(statusOf(c, older), 'active');
      assert.deepEqual(await openPairs(c), []);
    });

    it('both hold: both stay current and the pair leaves the queue, marked settled', async (t) => {
      const c = await link(t, era, { answer: accept({ pair_1: 'both' }) });
      const { result, newer, older } = await contradict(c);
      assert.equal(statusOf(c, newer), 'active');
      assert.equal(statusOf(c, older), 'active');
      assert.deepEqual(await openPairs(c), []);
      const relation = [...c.store.relations.values()].find(
        (r) => r.relation_type === 'conflicts_with',
      );
      assert.equal(relation?.metadata.settled, 'both');
      assert.match(textOf(result), /the person chose: both it and .* hold/);
    });

    it('merge: one new memory of both, the two archived', async (t) => {
      const c = await link(t, era, { answer: accept({ pair_1: 'merge' }) });
      const { saved, newer, older } = await contradict(c);
      const merged = saved.asked?.settled[0]?.merged_id;
      assert.ok(merged);
      assert.equal(statusOf(c, newer), 'archived');
      assert.equal(statusOf(c, older), 'archived');
      assert.equal(statusOf(c, merged), 'active');
      const text = c.store.memories.get(merged)?.content ?? '';
      assert.ok(text.includes('Ivan likes chess.') && text.includes('Ivan hates chess.'), text);
    });

    it('a client without elicitation is not asked: the pair waits in the review queue', async (t) => {
      const c = await link(t, era, { capabilities: {} });
      const { result, saved, newer, older } = await contradict(c);
      assert.equal(saved.asked, undefined);
      assert.deepEqual(await openPairs(c), [[newer, older]]);
      assert.match(textOf(result), /both kept, in the review queue \(settle_conflict\)/);
    });

    it('a client with URL elicitation only is not asked', async (t) => {
      const c = await link(t, era, { capabilities: { elicitation: { url: {} } } });
      const { saved, newer, older } = await contradict(c);
      assert.equal(saved.asked, undefined);
      assert.deepEqual(await openPairs(c), [[newer, older]]);
    });

    for (const action of ['decline', 'cancel'] as const) {
      it(`${action}: the pair waits in the review queue, and the answer says so`, async (t) => {
        const c = await link(t, era, { answer: async () => ({ action }) });
        const { result, saved, newer, older } = await contradict(c);
        assert.deepEqual(saved.asked, { answer: 'declined', settled: [] });
        assert.deepEqual(await openPairs(c), [[newer, older]]);
        assert.equal(statusOf(c, newer), 'active');
        assert.match(textOf(result), new RegExp(`Saved as ${newer}\\..*declined.*review queue`));
      });
    }

    it('an answer that is not one of the choices settles nothing', async (t) => {
      const c = await link(t, era, { answer: accept({ pair_1: 'neither', pair_2: 'new' }) });
      const { saved, newer, older } = await contradict(c);
      assert.equal(saved.asked?.answer, 'unanswered');
      assert.deepEqual(await openPairs(c), [[newer, older]]);
    });

    it('several pairs: one field each, no merge; a pair left blank stays queued', async (t) => {
      const c = await link(t, era, { answer: accept({ pair_2: 'new' }) });
      const first = await c.call('save_memory', { content: 'Ivan likes chess.' });
      const second = await c.call('save_memory', { content: 'Ivan likes chess a lot.' });
      const result = await c.call('save_memory', { content: 'Ivan hates chess.' });
      const saved = result.structuredContent as unknown as Saved;
      assert.equal(saved.conflicts.length, 2);
      const question = c.questions[0] as ElicitRequestFormParams;
      assert.deepEqual(Object.keys(question.requestedSchema.properties), ['pair_1', 'pair_2']);
      assert.match(question.message, /2 earlier ones/);
      const choices = (question.requestedSchema.properties.pair_1 as { oneOf: { const: string }[] })
        .oneOf;
      assert.ok(!choices.some((o) => o.const === 'merge'));
      const answered = saved.conflicts[1]?.memory_id as string;
      const left = saved.conflicts[0]?.memory_id as string;
      assert.deepEqual(saved.asked?.settled, [
        { memory_id: answered, keep: 'new', merged_id: null },
      ]);
      assert.equal(statusOf(c, answered), 'superseded');
      assert.deepEqual(await openPairs(c), [[saved.memory_id, left]]);
      assert.match(textOf(result), /The others: both kept, in the review queue/);
      const ids = [first, second].map((r) => (r.structuredContent as unknown as Saved).memory_id);
      assert.deepEqual(new Set(ids), new Set([answered, left]));
    });
  });
}

describe('save_memory asks which holds: when no answer comes', () => {
  it('before 2026-07-28, the client failing to answer: the save is still reported, the pair queued', async (t) => {
    const c = await link(t, 'legacy', {
      answer: async () => {
        throw new Error('the dialog could not be shown');
      },
    });
    const { result, saved, newer, older } = await contradict(c);
    assert.equal(c.questions.length, 1);
    assert.deepEqual(saved.asked, { answer: 'unanswered', settled: [] });
    assert.equal(statusOf(c, newer), 'active');
    assert.deepEqual(await openPairs(c), [[newer, older]]);
    assert.match(textOf(result), new RegExp(`^Saved as ${newer}\\..*with no answer; both kept`));
  });

  it('before 2026-07-28, no answer within the bound: the question is given up, the pair queued', async (t) => {
    let release: () => void = () => {};
    const never = new Promise<void>((resolve) => {
      release = resolve;
    });
    t.after(() => release());
    const c = await link(t, 'legacy', {
      answerWithinMs: 20,
      answer: async () => {
        await never;
        return { action: 'accept', content: { pair_1: 'new' } };
      },
    });
    const { saved, newer, older } = await contradict(c);
    assert.deepEqual(saved.asked, { answer: 'unanswered', settled: [] });
    assert.deepEqual(await openPairs(c), [[newer, older]]);
  });

  it('2026-07-28, the answer coming after the bound (the memory clock): nothing settled', async (t) => {
    const c = await link(t, 'modern', {
      answerWithinMs: 60_000,
      answer: async (_params, memory) => {
        memory.clock.now += 61;
        return { action: 'accept', content: { pair_1: 'new' } };
      },
    });
    const { saved, newer, older } = await contradict(c);
    assert.equal(c.questions.length, 1);
    assert.deepEqual(saved.asked, { answer: 'unanswered', settled: [] });
    assert.equal(statusOf(c, older), 'active');
    assert.deepEqual(await openPairs(c), [[newer, older]]);
  });

  it('2026-07-28, the client failing to answer: its call fails on its side, the memory is saved and queued', async (t) => {
    const c = await link(t, 'modern', {
      answer: async () => {
        throw new Error('the dialog could not be shown');
      },
    });
    await c.call('save_memory', { content: 'Ivan likes chess.' });
    await assert.rejects(c.call('save_memory', { content: 'Ivan hates chess.' }));
    const saved = [...c.store.memories.values()].find((m) => m.content === 'Ivan hates chess.');
    assert.equal(saved?.status, 'active');
    assert.equal((await openPairs(c)).length, 1);
  });
});
