import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { openTestClient, type TestClient } from '../support.js';
import {
  assertNoInternals,
  bounded,
  clip,
  hostileJson,
  hostileNumber,
  hostileText,
  timeBoxed,
} from './hostile.js';

// Every registered tool, called with generated arguments: arbitrary JSON, and the tool's own keys
// with hostile values. What must hold: a result, an isError result with a message, or a -32602
// with a message; never another failure; no path of this machine or stack in what comes back;
// each call answers (a hang fails the test, never stalls it); and the server answers afterwards.
// How long a call takes is left to benchmarks: the text routines it reaches are linear by their
// regexes (test/security/regex-linear.test.ts) and by the structural tests of each.

interface Tool {
  name: string;
  keys: string[];
  schema: JsonSchema;
}

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

let c: TestClient;
let tools: Tool[] = [];
const ids: string[] = [];
let slowest = { ms: 0, tool: '' };

before(async () => {
  c = await openTestClient();
  for (const content of ['the cabin key is under the blue pot', 'Ralph sleeps on the rug', 'tea']) {
    const saved = await c.ok<{ memory_id: string }>('save_memory', { content, tags: ['home'] });
    ids.push(saved.memory_id);
  }
  const listed = await c.client.listTools();
  tools = listed.tools.map((t) => ({
    name: t.name,
    keys: Object.keys((t.inputSchema as JsonSchema).properties ?? {}),
    schema: t.inputSchema as JsonSchema,
  }));
  assert.ok(tools.length > 10);
});

after(async () => {
  await c.close();
});

/** A value for any key: hostile text, numbers, lists, objects, and ids that exist. */
const value = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...['id0', 'id1', 'id2']).map((k) => ids[Number(k.slice(2))]),
  },
  {
    weight: 1,
    arbitrary: fc.array(fc.oneof(hostileText, fc.constantFrom('home', 'x')), { maxLength: 5 }),
  },
  { weight: 1, arbitrary: hostileJson },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      true,
      false,
      null,
      'a\u0000b',
      '../../../../etc/passwd',
      'mnemo://vault/../../etc/passwd',
      -1,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
      [],
      {},
      { __proto__: null },
    ),
  },
);

/** Arguments near the schema: some of the tool's own keys, each with a hostile value. */
function nearSchema(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  if (tool.keys.length === 0) return fc.constant({});
  return fc
    .uniqueArray(fc.constantFrom(...tool.keys), { maxLength: tool.keys.length })
    .chain((keys) =>
      fc
        .tuple(...keys.map(() => value))
        .map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]]))),
    );
}

/**
 * A value of the type the schema asks for, hostile within it: the text of a string is hostile
 * text of an allowed length, an id is one that exists or not, a number is anywhere in its range.
 * These pass the SDK's validation and reach the use cases.
 */
function typed(schema: JsonSchema, key: string): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 100_000;
      const text = hostileText.filter((t) => t.length >= min && t.length <= max);
      if (!key.endsWith('_id') && key !== 'cursor') return text;
      return fc.oneof(fc.constantFrom(...ids), text);
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(typed(schema.items ?? {}, key.replace(/s$/, '')), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 5, 5)),
      });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 10 }), hostileJson, { maxKeys: 4 });
    default:
      return value;
  }
}

/** Arguments of the right types: the required keys, and some of the others. */
function typedArgs(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const properties = tool.schema.properties ?? {};
  const required = new Set(tool.schema.required ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(properties)) shape[key] = typed(schema, key);
  return fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) });
}

const call = fc.constantFrom(0, 1).chain(() =>
  fc.integer({ min: 0, max: 1000 }).chain((i) => {
    const tool = tools[i % tools.length] as Tool;
    return fc
      .oneof(
        { weight: 3, arbitrary: typedArgs(tool) },
        { weight: 2, arbitrary: nearSchema(tool) },
        {
          weight: 1,
          arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), value, { maxKeys: 4 }),
        },
      )
      .map((args) => ({ tool: tool.name, args }));
  }),
);

async function checkCall(tool: string, args: Record<string, unknown>): Promise<void> {
  const shown = `${tool}(${clip(JSON.stringify(args), 300)})`;
  const started = performance.now();
  let text: string;
  try {
    // A call that never answers ends in the SDK's request timeout (60 s): -32001, a failure.
    const result = await c.client.callTool({ name: tool, arguments: args });
    text = JSON.stringify(result);
    if (result.isError) {
      const content = result.content as { type: string; text?: string }[];
      assert.ok(
        content.some((p) => p.type === 'text' && (p.text ?? '') !== ''),
        `an error without a message: ${shown}`,
      );
    }
  } catch (error) {
    assert.ok(error instanceof ProtocolError, `not an MCP error from ${shown}: ${error}`);
    assert.equal(error.code, -32602, `${shown}: ${error.message}`);
    assert.ok(error.message.length > 0);
    text = error.message;
  }
  // Shown, not asserted: a machine under load makes any call slow.
  const took = performance.now() - started;
  if (took > slowest.ms) slowest = { ms: took, tool };
  assertNoInternals(text, `the answer of ${shown}`, [c.dir]);
}

describe('fuzz: every tool, hostile arguments', () => {
  it('answers a result, an isError or -32602, never crashes, and keeps answering', async (t) => {
    await fc.assert(
      fc.asyncProperty(
        call,
        timeBoxed(5, async ({ tool, args }) => {
          await checkCall(tool, args);
          await c.client.ping();
        }),
      ),
      bounded(600),
    );
    // Each tool at least once with no arguments, and with each of its keys set to hostile text.
    for (const tool of tools) {
      await checkCall(tool.name, {});
      await checkCall(
        tool.name,
        Object.fromEntries(tool.keys.map((k) => [k, '../\u0000'.repeat(10)])),
      );
    }
    await c.client.ping();
    t.diagnostic(`slowest call: ${slowest.tool} ${slowest.ms.toFixed(0)} ms`);
  });
});
