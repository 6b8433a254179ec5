import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import {
  checkLine,
  jsonShapeProblem,
  MAX_JSON_COMMAS,
  MAX_JSON_DEPTH,
  MAX_JSON_MEMBERS,
} from '../../src/transport/jsonrpc.js';

/** Members of all the objects in `value`. */
function membersOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const own = Array.isArray(value) ? 0 : Object.keys(value).length;
  return (
    own +
    Object.values(value as Record<string, unknown>).reduce<number>((n, v) => n + membersOf(v), 0)
  );
}

/** Commas of `value` as JSON: between the elements of each list and the members of each object. */
function commasOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const inner = Object.values(value as Record<string, unknown>);
  return Math.max(0, inner.length - 1) + inner.reduce<number>((n, v) => n + commasOf(v), 0);
}

/** Arrays and objects nested in `value`, the outermost counted. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const inner = Object.values(value as Record<string, unknown>).map(depthOf);
  return 1 + Math.max(0, ...inner);
}

/** `text` as jsonShapeProblem reads it, counting the characters it reads. */
function counted(text: string): { view: string; reads: () => number } {
  let reads = 0;
  const view = {
    length: text.length,
    charCodeAt(i: number) {
      reads++;
      return text.charCodeAt(i);
    },
  };
  return { view: view as unknown as string, reads: () => reads };
}

/** Whether JSON.parse was handed `line`: what held the loop for such lines is its parse. */
function parsesOf(t: TestContext): (line: string) => boolean {
  const parse = t.mock.method(JSON, 'parse');
  return (line) => parse.mock.calls.some((call) => call.arguments[0] === line);
}

describe('checkLine: batches', () => {
  it('answers a small batch an error per message, each with its id', () => {
    const checked = checkLine(
      JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' }))),
    );
    assert.ok('reply' in checked && Array.isArray(checked.reply));
    assert.deepEqual(
      checked.reply.map((r) => [r.id, r.error.code]),
      [
        [1, -32600],
        [2, -32600],
      ],
    );
  });

  it('answers a batch of 10,000 messages with one error, not one a message', () => {
    const line = JSON.stringify(Array(10_000).fill(0));
    const checked = checkLine(line);
    const reply = 'reply' in checked ? JSON.stringify(checked.reply) : '';
    assert.ok('reply' in checked && !Array.isArray(checked.reply), 'one answer, not one a message');
    assert.match(reply, /-32600.*batches are not supported \(this one has 10000 messages\)/);
  });

  it('answers a line of a million values with one short error, never parsed', (t) => {
    const line = `[${'0,'.repeat(1_000_000)}0]`;
    const parsed = parsesOf(t);
    const checked = checkLine(line);
    const reply = 'reply' in checked ? JSON.stringify(checked.reply) : '';
    assert.ok('reply' in checked && !Array.isArray(checked.reply));
    assert.match(reply, /-32600/);
    assert.ok(reply.length < 1_000, `the answer is short (${reply.length} characters)`);
    assert.equal(parsed(line), false, 'the line was parsed');
  });
});

describe('nesting: refused before JSON.parse, in one pass', () => {
  it('jsonShapeProblem counts the nesting, members and commas of any JSON text exactly (strings with brackets, colons, commas, quotes and escapes included)', () => {
    // Holds: for every JSON value and bounds, the scan refuses it exactly when the parsed value
    // is deeper or has more members than the bounds.
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 40 }),
        (value, depth, members) => {
          const text = JSON.stringify(value);
          const none = Number.POSITIVE_INFINITY;
          const deep = jsonShapeProblem(text, { depth, members: none, commas: none });
          assert.equal(deep !== undefined, depthOf(value) > depth);
          const wide = jsonShapeProblem(text, { depth: none, members, commas: none });
          assert.equal(wide !== undefined, membersOf(value) > members);
          const long = jsonShapeProblem(text, { depth: none, members: none, commas: members });
          assert.equal(long !== undefined, commasOf(value) > members);
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: 3_000 },
    );
  });

  it(`answers a line with more than ${MAX_JSON_COMMAS} values in a list with one -32600, never parsed`, (t) => {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_memory', arguments: { status: Array(500_000).fill(1) } },
    });
    const parsed = parsesOf(t);
    const checked = checkLine(line);
    assert.ok('reply' in checked && !Array.isArray(checked.reply));
    assert.match(checked.reply.error.message, /more than 20,000 values in all/);
    assert.equal(parsed(line), false, 'the line was parsed');
    // One pass, that stops at the comma past the cap.
    const text = counted(line);
    assert.ok(jsonShapeProblem(text.view) !== undefined);
    assert.ok(text.reads() < line.length / 10, `${text.reads()} of ${line.length} read`);
  });

  it(`answers a line whose objects have more than ${MAX_JSON_MEMBERS} members with one -32600, never parsed`, (t) => {
    const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 1]));
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'memory_stats', arguments: keys },
    });
    const parsed = parsesOf(t);
    const checked = checkLine(line);
    assert.ok('reply' in checked && !Array.isArray(checked.reply));
    assert.match(checked.reply.error.message, /more than 10,000 members in all/);
    assert.equal(parsed(line), false, 'the line was parsed');
    const text = counted(line);
    assert.ok(jsonShapeProblem(text.view) !== undefined);
    assert.ok(text.reads() < line.length / 10, `${text.reads()} of ${line.length} read`);
  });

  for (const [name, open, close] of [
    ['[', '[', ']'],
    ['{"a":', '{"a":', '}'],
  ] as const) {
    it(`answers a 10 MB line of ${name} with one -32600, having read up to the bracket past the cap`, (t) => {
      const n = Math.floor(5_000_000 / open.length);
      const line = `${open.repeat(n)}1${close.repeat(n)}`;
      const parsed = parsesOf(t);
      const checked = checkLine(line);
      assert.ok('reply' in checked && !Array.isArray(checked.reply));
      assert.equal(checked.reply.error.code, -32600);
      assert.match(checked.reply.error.message, new RegExp(`more than ${MAX_JSON_DEPTH} deep`));
      assert.equal(parsed(line), false, 'the line was parsed');
      const text = counted(line);
      assert.ok(jsonShapeProblem(text.view) !== undefined);
      assert.equal(text.reads(), MAX_JSON_DEPTH * open.length + 1);
    });
  }

  it('lets a message nested as deep as MCP needs through', () => {
    let meta: unknown = 1;
    for (let i = 0; i < 8; i++) meta = { a: meta };
    const checked = checkLine(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'save_memory', arguments: { content: 'x', meta } },
      }),
    );
    assert.ok('message' in checked);
  });
});
