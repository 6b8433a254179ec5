import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import fc from 'fast-check';
import { ASKED_KEEPS, type AskedPerson } from '../../src/contract/save-memory.js';
import { createServer } from '../../src/server.js';
import { MAX_ASKED, readAnswers } from '../../src/tools/conflict-question.js';
import { ruleJudge } from '../memory/fact-rules.js';
import { openTestMemory, type TestMemory } from '../support.js';
import {
  assertNoPollution,
  bounded,
  clip,
  hostileJson,
  hostileKey,
  objectOf,
  timeBoxed,
} from './hostile.js';

// The person's answer to save_memory's conflict question comes from a client we do not control.
// Whatever it holds (wrong types, huge text, extra or polluting keys, deep nesting, choices never
// offered), the tool answers the save, settles only a pair it asked about with a choice it offered,
// each pair at most once, and a pair not validly answered stays in the review queue.

interface Saved {
  memory_id: string;
  conflicts: { memory_id: string }[];
  asked?: AskedPerson;
}

/** The choices a question about `pairs` conflicts offers: merge with one pair only. */
const offeredKeeps = (pairs: number): readonly string[] =>
  Math.min(pairs, MAX_ASKED) === 1 ? ASKED_KEEPS : ASKED_KEEPS.filter((k) => k !== 'merge');

/**
 * The answers a content holds, by the question's contract and independently of readAnswers: an
 * own `pair_<n>` data property for a pair asked, whose value is exactly a choice offered.
 */
function expectedAnswers(
  ids: readonly string[],
  content: unknown,
): { memory_id: string; keep: string }[] {
  if (content === null || typeof content !== 'object') return [];
  const keeps = offeredKeeps(ids.length);
  const out: { memory_id: string; keep: string }[] = [];
  ids.slice(0, MAX_ASKED).forEach((memory_id, index) => {
    const own = Object.getOwnPropertyDescriptor(content, `pair_${index + 1}`);
    const value: unknown = own?.value;
    if (typeof value === 'string' && keeps.includes(value)) out.push({ memory_id, keep: value });
  });
  return out;
}

/** A choice: one offered, one near it, or anything at all. */
const choice: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ASKED_KEEPS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'NEW',
      'new ',
      ' old',
      'first',
      'second',
      'neither',
      '',
      'toString',
      'valueOf',
      '__proto__',
      'constructor',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(['new'], { const: 'new' }, 1, true, null) },
  { weight: 2, arbitrary: hostileJson },
  // Nested deep: a list in a list... around a choice.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 100, max: 2_000 }).map((depth) => {
      let value: unknown = 'new';
      for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { pair_1: value };
      return value;
    }),
  },
);

const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: MAX_ASKED + 1 }).map((n) => `pair_${n}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('Pair_1', ' pair_1', 'pair_1 ', 'pair_01', 'pair1', '1', 'keep'),
  },
  { weight: 1, arbitrary: hostileKey },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

/** A valid answer to some pairs, with hostile fields beside it. */
const validAnswer = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 1, max: MAX_ASKED }), { minLength: 1, maxLength: MAX_ASKED }),
    fc.constantFrom(...ASKED_KEEPS),
    fc.array(fc.tuple(fieldName, choice), { maxLength: 3 }),
  )
  .map(([pairs, keep, noise]) =>
    objectOf([...noise, ...pairs.map((n): [string, unknown] => [`pair_${n}`, keep])]),
  );

/** The content of an accepted form: fields near the question's, and anything else. */
const answerContent: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: validAnswer },
  { weight: 4, arbitrary: fc.array(fc.tuple(fieldName, choice), { maxLength: 6 }).map(objectOf) },
  { weight: 1, arbitrary: hostileJson },
  { weight: 1, arbitrary: fc.array(choice, { maxLength: 4 }) },
);

/** Every settled pair was asked about, offered that choice, answered it, and is settled once. */
function checkSettled(ids: readonly string[], content: unknown, asked: AskedPerson | undefined) {
  assert.ok(asked, 'the person was asked: the answer says what came of it');
  const answered = expectedAnswers(ids, content);
  const seen = new Set<string>();
  for (const s of asked.settled) {
    assert.ok(!seen.has(s.memory_id), `${s.memory_id} settled twice`);
    seen.add(s.memory_id);
    assert.ok(
      answered.some((a) => a.memory_id === s.memory_id && a.keep === s.keep),
      `settled ${s.memory_id} as ${s.keep}, not what was answered: ${clip(JSON.stringify(content) ?? '')}`,
    );
  }
  assert.equal(asked.answer === 'settled', asked.settled.length > 0);
}

describe('fuzz: reading the answer to the conflict question', () => {
  it('reads exactly the choices offered for fields asked, from any content', () => {
    const content = fc.oneof(
      { weight: 5, arbitrary: answerContent },
      // Inherited answers are not the client's: a prototype holding a valid one.
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(...ASKED_KEEPS)
          .map((keep) => Object.create({ pair_1: keep, pair_2: keep }) as unknown),
      },
      { weight: 1, arbitrary: fc.constantFrom(undefined, null, 'pair_1', 7, []) },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_ASKED + 2 }),
        content,
        timeBoxed(3, (pairs, given) => {
          const ids = Array.from({ length: pairs }, (_, i) => `m${i}`);
          const conflicts = ids.map((memory_id) => ({
            memory_id,
            content: `text of ${memory_id}`,
          }));
          const answers = readAnswers(conflicts, given as Record<string, unknown>);
          assert.deepEqual(answers, expectedAnswers(ids, given));
          assertNoPollution();
        }),
      ),
      bounded(3_000),
    );
  });
});

// --- Through the tool, as a client sends it ---------------------------------------------------

let t: TestMemory;
before(async () => {
  t = await openTestMemory({}, undefined, { judgeFacts: ruleJudge });
});
after(async () => {
  await t.close();
});

const factory = () => createServer({ memory: t.memory, logger: t.logger });

let runs = 0;

/** The earlier memories of one run, each liking what the new one will hate. */
const EARLIER = [
  'likes chess.',
  'likes chess a lot.',
  'likes chess on Sundays.',
  'likes chess, really.',
];

/** A run's pairs: `count` earlier memories of a name of its own, and the text that contradicts them. */
async function earlier(
  save: (content: string) => Promise<CallToolResult>,
  count: number,
): Promise<{ ids: string[]; contradiction: string }> {
  const name = `Person${++runs}x`;
  const ids: string[] = [];
  for (const text of EARLIER.slice(0, count)) {
    const result = await save(`${name} ${text}`);
    ids.push((result.structuredContent as unknown as Saved).memory_id);
  }
  return { ids, contradiction: `${name} hates chess.` };
}

const statusOf = (id: string) => t.store.memories.get(id)?.status;
const openWith = async (id: string) =>
  (await t.memory.conflicts.open(1_000))
    .filter((p) => p.first.memory_id === id || p.second.memory_id === id)
    .map((p) => (p.first.memory_id === id ? p.second.memory_id : p.first.memory_id));

/**
 * What a save whose question was answered with `content` left: the save reported, what it settled
 * as checkSettled requires, and, where nothing was settled, every pair still open and current.
 */
async function checkAnswered(
  result: CallToolResult,
  content: unknown,
  pairs: { ids: string[] },
): Promise<Saved> {
  assert.equal(result.isError, undefined, JSON.stringify(result.content).slice(0, 300));
  const saved = result.structuredContent as unknown as Saved;
  assert.deepEqual(new Set(saved.conflicts.map((c) => c.memory_id)), new Set(pairs.ids));
  // The question asks about the conflicts in the order the save lists them.
  const asked = saved.conflicts.map((c) => c.memory_id);
  checkSettled(asked, content, saved.asked);
  const settled = new Set(saved.asked?.settled.map((s) => s.memory_id));
  const open = new Set(await openWith(saved.memory_id));
  for (const id of asked)
    if (settled.has(id)) assert.ok(!open.has(id), `${id} settled, still open`);
  if (settled.size === 0) {
    assert.deepEqual(open, new Set(asked), 'nothing settled: every pair waits in the review queue');
    for (const id of [saved.memory_id, ...asked]) assert.equal(statusOf(id), 'active');
  }
  assertNoPollution();
  return saved;
}

/**
 * A client before 2026-07-28 that speaks JSON-RPC itself: what it answers to elicitation/create
 * is whatever the test says, sent as JSON (a client of the SDK would check it first).
 */
async function rawLegacyClient(answer: () => unknown) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = factory();
  await server.connect(serverSide);
  const pending = new Map<number, (message: Record<string, unknown>) => void>();
  let nextId = 0;
  const send = (message: Record<string, unknown>) =>
    clientSide.send(JSON.parse(JSON.stringify(message)) as JSONRPCMessage);
  clientSide.onmessage = (message) => {
    const m = message as Record<string, unknown>;
    if (typeof m.method === 'string' && m.id !== undefined) {
      const reply =
        m.method === 'elicitation/create'
          ? { result: answer() }
          : m.method === 'ping'
            ? { result: {} }
            : { error: { code: -32601, message: 'not here' } };
      void send({ jsonrpc: '2.0', id: m.id, ...reply });
    } else if (typeof m.id === 'number') pending.get(m.id)?.(m);
  };
  await clientSide.start();
  const request = (method: string, params: unknown) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      void send({ jsonrpc: '2.0', id, method, params });
    });
  const init = await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'raw-fuzz', version: '1' },
  });
  assert.ok(init.result, JSON.stringify(init.error));
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const save = async (content: string) => {
    const answered = await request('tools/call', { name: 'save_memory', arguments: { content } });
    assert.equal(answered.error, undefined, JSON.stringify(answered.error));
    return answered.result as CallToolResult;
  };
  return { save, close: () => server.close() };
}

/** An elicitation result near the spec's, and anything else. */
const elicitResult = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      action: fc.oneof(
        { weight: 4, arbitrary: fc.constant('accept') },
        { weight: 2, arbitrary: fc.constantFrom('decline', 'cancel') },
        { weight: 1, arbitrary: fc.constantFrom('ACCEPT', 'accept ', '__proto__') },
        { weight: 1, arbitrary: hostileJson },
      ),
      content: answerContent,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ action: choice, content: answerContent }, { requiredKeys: [] }),
  },
  { weight: 1, arbitrary: hostileJson },
);

/**
 * A result as the response to elicitation/create carries it: an object. Anything else is no
 * JSON-RPC response at all, which the SDK drops; the pair then waits out the answer window.
 */
const legacyResult = elicitResult.filter(
  (r) => r !== null && typeof r === 'object' && !Array.isArray(r),
);

const contentOf = (result: unknown): unknown =>
  result !== null &&
  typeof result === 'object' &&
  (result as { action?: unknown }).action === 'accept'
    ? (result as { content?: unknown }).content
    : undefined;

describe('fuzz: the answer through save_memory', () => {
  it('before 2026-07-28: any elicitation result, the save answered and only valid answers applied', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: MAX_ASKED + 1 }),
        legacyResult,
        timeBoxed(6, async (count, result) => {
          const client = await rawLegacyClient(() => result);
          try {
            const pairs = await earlier(client.save, count);
            const saved = await checkAnswered(
              await client.save(pairs.contradiction),
              contentOf(result),
              pairs,
            );
            assert.notEqual(saved.asked, undefined);
          } finally {
            await client.close();
          }
        }),
      ),
      bounded(40),
    );
  });

  it('on 2026-07-28: any inputResponses, applied once, only as offered', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(factory, { transport: serverSide });
    const client = new Client(
      { name: 'fuzz-rounds', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(clientSide);
    const call = async (content: string, retry: Record<string, unknown> = {}) =>
      (await client.callTool(
        { name: 'save_memory', arguments: { content }, ...retry } as never,
        { allowInputRequired: true } as never,
      )) as CallToolResult & { requestState?: string; resultType?: string };
    const responses = fc.oneof(
      { weight: 5, arbitrary: elicitResult.map((r) => ({ which_holds: r })) },
      {
        weight: 1,
        arbitrary: fc.tuple(hostileKey, elicitResult).map(([key, r]) =>
          objectOf([
            [key, { which_holds: r }],
            ['which_holds', r],
          ]),
        ),
      },
      { weight: 1, arbitrary: hostileJson },
    );
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: MAX_ASKED + 1 }),
          responses,
          timeBoxed(6, async (count, given) => {
            const pairs = await earlier(call, count);
            const question = await call(pairs.contradiction);
            assert.equal(question.resultType, 'input_required');
            const requestState = question.requestState as string;
            const result = await call(pairs.contradiction, { inputResponses: given, requestState });
            const entry =
              given !== null && typeof given === 'object' && !Array.isArray(given)
                ? Object.getOwnPropertyDescriptor(given, 'which_holds')?.value
                : undefined;
            const content = contentOf(entry);
            const saved = await checkAnswered(result, content, pairs);
            const asked = saved.conflicts.map((c) => c.memory_id);
            // With one valid answer, nothing else can stand in its way: it is applied.
            const answers = expectedAnswers(asked, content);
            if (answers.length === 1 && !Array.isArray(content)) {
              assert.deepEqual(
                saved.asked?.settled.map(({ memory_id, keep }) => ({ memory_id, keep })),
                answers,
              );
            }
            // The same state again, every pair answered: a pair settled before is not settled again.
            const again = await call(pairs.contradiction, {
              inputResponses: {
                which_holds: {
                  action: 'accept',
                  content: Object.fromEntries(asked.map((_, i) => [`pair_${i + 1}`, 'both'])),
                },
              },
              requestState,
            });
            assert.equal(again.isError, undefined);
            const first = new Set(saved.asked?.settled.map((s) => s.memory_id));
            for (const s of (again.structuredContent as unknown as Saved).asked?.settled ?? [])
              assert.ok(!first.has(s.memory_id), `${s.memory_id} settled twice`);
          }),
        ),
        bounded(40),
      );
    } finally {
      await client.close();
      await handle.close();
    }
  });
});
