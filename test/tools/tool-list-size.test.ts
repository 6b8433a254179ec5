// Every conversation pays for the tool list: it is measured as a client receives it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestClient, type TestClient } from '../support.js';

/** Characters of name, title, description, input schema and annotations, all tools together. */
const MAX_TOOL_LIST = 12_500;
/** Characters of one tool's description: details are at mnemo://help/<tool>. */
const MAX_DESCRIPTION = 200;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

describe('the tool list', () => {
  let t: TestClient;
  before(async () => {
    t = await openTestClient();
  });
  after(() => t.close());

  it(`holds at most ${MAX_TOOL_LIST.toLocaleString('en-US')} characters, output schemas aside`, async () => {
    const { tools } = await t.client.listTools();
    const size = tools.reduce(
      (sum, tool) =>
        sum +
        tool.name.length +
        (tool.title ?? '').length +
        (tool.description ?? '').length +
        JSON.stringify(tool.inputSchema).length +
        JSON.stringify(tool.annotations ?? {}).length,
      0,
    );
    assert.ok(size <= MAX_TOOL_LIST, `the tools take ${size} characters`);
  });

  it('gives every tool a short description and all four hints', async () => {
    const { tools } = await t.client.listTools();
    for (const tool of tools) {
      const length = (tool.description ?? '').length;
      assert.ok(length <= MAX_DESCRIPTION, `${tool.name}'s description has ${length} characters`);
      for (const hint of HINTS) {
        const value = (tool.annotations as Record<string, unknown> | undefined)?.[hint];
        assert.equal(typeof value, 'boolean', `${tool.name} says ${hint}`);
      }
    }
  });
});
