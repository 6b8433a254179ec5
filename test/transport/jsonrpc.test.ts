import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkLine, MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/transport/jsonrpc.js';

/** Arrays and objects nested in `value`, the outermost counted. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const inner = Object.values(value as Record<string, unknown>).map(depthOf);
  return 1 + Math.max(0, ...inner);
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

  it('answers a batch of a million messages with one error, in well under 200 ms', () => {
    const line = `[${'0,'.repeat(1_000_000)}0]`;
    const started = performance.now();
    const checked = checkLine(line);
    const reply = 'reply' in checked ? JSON.stringify(checked.reply) : '';
    const ms = performance.now() - started;
    assert.ok('reply' in checked && !Array.isArray(checked.reply), 'one answer, not one a message');
    assert.match(reply, /-32600.*batches are not supported/);
    assert.ok(reply.length < 1_000, `the answer is short (${reply.length} characters)`);
    assert.ok(ms < 200, `took ${ms} ms`);
  });
});

describe('nesting: refused before JSON.parse, in linear time', () => {
  it('nestsDeeperThan counts the nesting of any JSON text exactly (strings with brackets, quotes and escapes included)', () => {
    // Holds: for every JSON value and bound, the scan agrees with the parsed value's depth.
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        const text = JSON.stringify(value);
        assert.equal(nestsDeeperThan(text, max), depthOf(value) > max);
      }),
      { numRuns: 300, interruptAfterTimeLimit: 3_000 },
    );
  });

  for (const [name, open, close] of [
    ['[', '[', ']'],
    ['{"a":', '{"a":', '}'],
  ] as const) {
    it(`answers a 10 MB line of ${name} with one -32600 in well under 200 ms`, () => {
      const n = Math.floor(5_000_000 / open.length);
      const line = `${open.repeat(n)}1${close.repeat(n)}`;
      const started = performance.now();
      const checked = checkLine(line);
      const ms = performance.now() - started;
      assert.ok('reply' in checked && !Array.isArray(checked.reply));
      assert.equal(checked.reply.error.code, -32600);
      assert.match(checked.reply.error.message, new RegExp(`more than ${MAX_JSON_DEPTH} deep`));
      assert.ok(ms < 200, `took ${ms} ms`);
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
