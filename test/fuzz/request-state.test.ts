import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport, ProtocolError } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import fc from 'fast-check';
import type { AskedPerson } from '../../src/contract/save-memory.js';
import { createServer } from '../../src/server.js';
import { ruleJudge } from '../memory/fact-rules.js';
import { openTestMemory, type TestMemory } from '../support.js';
import {
  assertNoPollution,
  bounded,
  clip,
  hostileJson,
  hostileText,
  timeBoxed,
} from './hostile.js';

// The state of a 2026-07-28 question comes back through the client, signed. A state that is not
// the one minted, however near it (cut short, a bit flipped, a byte of its payload or signature
// changed, a payload re-signed by nobody, another question's signature), is refused: the call is
// the ordinary save it is, nothing is asked again, the answer it carries is not applied, and
// nothing throws. The state as minted still takes the answer afterwards.

interface Saved {
  memory_id: string;
  deduplicated: boolean;
  asked?: AskedPerson;
}

type Answer = CallToolResult & { resultType?: string; requestState?: string };

const NEWER = 'Ivan hates chess.';
const NEW_HOLDS = { which_holds: { action: 'accept', content: { pair_1: 'new' } } };

let t: TestMemory;
let client: Client;
let close: () => Promise<void>;
let state: string;
/** The state of another question, minted by the same server for other arguments. */
let otherState: string;
let older: string;
let newer: string;

const call = async (content: string, retry: Record<string, unknown> = {}) =>
  (await client.callTool(
    { name: 'save_memory', arguments: { content }, ...retry } as never,
    { allowInputRequired: true } as never,
  )) as Answer;

before(async () => {
  t = await openTestMemory({}, undefined, { judgeFacts: ruleJudge });
  const key = new Uint8Array(32).fill(7);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(
    () => createServer({ memory: t.memory, logger: t.logger, asking: { key } }),
    { transport: serverSide },
  );
  client = new Client(
    { name: 'fuzz-state', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(clientSide);
  close = async () => {
    await client.close();
    await handle.close();
  };
  older = ((await call('Ivan likes chess.')).structuredContent as unknown as Saved).memory_id;
  const question = await call(NEWER);
  assert.equal(question.resultType, 'input_required');
  state = question.requestState as string;
  newer = [...t.store.memories.values()].find((m) => m.content === NEWER)?.id as string;
  await call('Olga likes tea.');
  const other = await call('Olga hates tea.');
  assert.equal(other.resultType, 'input_required');
  otherState = other.requestState as string;
});

after(async () => {
  await close();
  await t.close();
});

/** A state's parts as the SDK's codec writes them: `v1.<payload>.<signature>`, base64url. */
function parts(s: string): { body: string; mac: string } {
  const dot = s.lastIndexOf('.');
  return { body: s.slice(3, dot), mac: s.slice(dot + 1) };
}

const encode = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const decode = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));

/** The bytes atob reads from a signature, as the codec reads them; undefined if it refuses. */
function signatureBytes(mac: string): string | undefined {
  try {
    return atob(mac.replaceAll('-', '+').replaceAll('_', '/'));
  } catch {
    return undefined;
  }
}

/**
 * Whether `s` is the minted state written another way: the same payload text and the same
 * signature bytes (atob skips white space and the unused low bits of the last character). That
 * is the state itself, not a forgery, and is left out.
 */
function sameSigned(s: string): boolean {
  if (!s.startsWith('v1.') || s.lastIndexOf('.') <= 3) return false;
  const mine = parts(state);
  const theirs = parts(s);
  if (theirs.body !== mine.body) return false;
  const bytes = signatureBytes(theirs.mac);
  return bytes !== undefined && bytes === signatureBytes(mine.mac);
}

function flipBit(bytes: Uint8Array, index: number, bit: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  out[index % out.length] = (out[index % out.length] ?? 0) ^ (1 << bit);
  return out;
}

/** The payload, decoded, with `path` set to `value`, written back unsigned. */
function forged(path: readonly string[], value: unknown): string {
  const { body, mac } = parts(state);
  const envelope = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
  let at: Record<string, unknown> = envelope;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path.at(-1) as string] = value;
  return `v1.${encode(Buffer.from(JSON.stringify(envelope)))}.${mac}`;
}

const position = fc.nat({ max: 10_000 });

/** States near the minted one, and anything else a client could send (once it is minted). */
const hostileStates = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: fc.constantFrom('', 'v1.', 'v1..', 'v1.e30.', 'v2.e30.AAAA', '.') },
    // Cut short, or its head cut off.
    { weight: 2, arbitrary: position.map((n) => state.slice(0, n % state.length)) },
    { weight: 1, arbitrary: position.map((n) => state.slice(1 + (n % (state.length - 1)))) },
    // A bit of one character flipped.
    {
      weight: 3,
      arbitrary: fc.tuple(position, fc.integer({ min: 0, max: 15 })).map(([n, bit]) => {
        const i = n % state.length;
        return (
          state.slice(0, i) +
          String.fromCharCode(state.charCodeAt(i) ^ (1 << bit)) +
          state.slice(i + 1)
        );
      }),
    },
    // A bit of the payload's bytes or of the signature's flipped, each written back as base64url.
    {
      weight: 2,
      arbitrary: fc.tuple(position, fc.integer({ min: 0, max: 7 })).map(([n, bit]) => {
        const { body, mac } = parts(state);
        return `v1.${encode(flipBit(decode(body), n, bit))}.${mac}`;
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(position, fc.integer({ min: 0, max: 7 })).map(([n, bit]) => {
        const { body, mac } = parts(state);
        return `v1.${body}.${encode(flipBit(decode(mac), n, bit))}`;
      }),
    },
    // The payload changed where it matters, the signature kept.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            ['p', 'asked_at'],
            ['p', 'call'],
            ['p', 'v'],
            ['exp'],
            ['b'],
            ['p', 'saved', 'memory_id'],
            ['p', 'saved', 'conflicts'],
          ),
          fc.oneof(hostileJson, fc.constantFrom(0, 1e12, 'x', null, [])),
        )
        .map(([path, value]) => forged(path, value)),
    },
    // Another question's payload or signature.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `v1.${parts(otherState).body}.${parts(state).mac}`,
        `v1.${parts(state).body}.${parts(otherState).mac}`,
      ),
    },
    // Text inserted anywhere, or the state twice.
    {
      weight: 2,
      arbitrary: fc.tuple(position, hostileText).map(([n, text]) => {
        const i = n % (state.length + 1);
        return state.slice(0, i) + text + state.slice(i);
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        state + state,
        `${state}.${parts(state).mac}`,
        state.toUpperCase(),
      ),
    },
  );

const statusOf = (id: string) => t.store.memories.get(id)?.status;
const pairOpen = async () =>
  (await t.memory.conflicts.open(10)).some(
    (p) => p.first.memory_id === newer && p.second.memory_id === older,
  );

describe('fuzz: the signed state of a 2026-07-28 question', () => {
  it('refuses every state but the one minted: the call is a save, the answer not applied', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileStates().filter((s) => !sameSigned(s)),
        timeBoxed(5, async (echoed) => {
          const shown = clip(JSON.stringify(echoed));
          const result = await call(NEWER, { inputResponses: NEW_HOLDS, requestState: echoed });
          assert.equal(result.isError, undefined, `${shown}: ${JSON.stringify(result.content)}`);
          assert.equal(result.resultType, undefined, `${shown}: asked again`);
          const saved = result.structuredContent as unknown as Saved;
          assert.equal(saved.asked, undefined, `${shown} was taken`);
          assert.equal(saved.memory_id, newer);
          assert.equal(saved.deduplicated, true, 'the same content again: a reinforcement');
          assert.equal(statusOf(older), 'active', `${shown}: the answer was applied`);
          assert.ok(await pairOpen(), `${shown}: the pair left the review queue`);
          assertNoPollution();
        }),
      ),
      // A state taken settles the pair for good and every later run fails too: the first is the one.
      { ...bounded(300), endOnFailure: true },
    );
  });

  it('the state as minted, sent with other arguments, is refused the same way', async () => {
    const others = fc.oneof(
      fc.constantFrom(`${NEWER} `, 'Ivan hates chess!', 'ivan hates chess.', 'Ivan likes chess.'),
      hostileText.filter((text) => text !== NEWER && text.trim() !== '' && text.length < 5_000),
    );
    await fc.assert(
      fc.asyncProperty(
        others,
        fc.option(fc.constantFrom(['x'], ['home']), { nil: undefined }),
        timeBoxed(4, async (content, tags) => {
          const result = await client.callTool(
            {
              name: 'save_memory',
              arguments: { content, ...(tags ? { tags } : {}) },
              inputResponses: NEW_HOLDS,
              requestState: state,
            } as never,
            { allowInputRequired: true } as never,
          );
          assert.equal((result as Answer).resultType, undefined);
          assert.equal((result.structuredContent as Saved | undefined)?.asked, undefined);
          assert.equal(statusOf(older), 'active', `${clip(content)}: the answer was applied`);
          assert.ok(await pairOpen());
        }),
      ),
      { ...bounded(40), endOnFailure: true },
    );
  });

  it('a requestState that is not a string is a protocol fault or a fresh call, never an answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileJson.filter((v) => typeof v !== 'string'),
        timeBoxed(3, async (echoed) => {
          try {
            const result = await call(NEWER, { inputResponses: NEW_HOLDS, requestState: echoed });
            assert.equal(result.isError, undefined);
            assert.equal((result.structuredContent as Saved | undefined)?.asked, undefined);
          } catch (error) {
            assert.ok(error instanceof ProtocolError, String(error));
            assert.equal(error.code, -32602);
          }
          assert.equal(statusOf(older), 'active');
          assert.ok(await pairOpen());
        }),
      ),
      { ...bounded(60), endOnFailure: true },
    );
  });

  it('the state as minted round-trips: the answer is applied', async () => {
    const result = await call(NEWER, { inputResponses: NEW_HOLDS, requestState: state });
    const saved = result.structuredContent as unknown as Saved;
    assert.deepEqual(saved.asked?.settled, [{ memory_id: older, keep: 'new', merged_id: null }]);
    assert.equal(statusOf(older), 'superseded');
    assert.ok(!(await pairOpen()));
  });
});
