import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { DefaultJsonSchemaValidator } from '../../src/transport/mcp-shims.js';

// The bundle's stand-in for the SDK's node shims (scripts/build-cli.ts): its validator answers as
// the SDK's own does, which it loads on first use.
describe('DefaultJsonSchemaValidator of the bundle', () => {
  const schema = {
    type: 'object',
    properties: { pair_1: { type: 'string', enum: ['old', 'new', 'both'] } },
    required: ['pair_1'],
  } as const;
  const inputs = [{ pair_1: 'old' }, { pair_1: 'neither' }, {}, { pair_1: 3 }, 'text'];

  it('accepts and refuses what the SDK validator does, with the same messages', () => {
    const ours = new DefaultJsonSchemaValidator().getValidator(schema);
    const sdk = new AjvJsonSchemaValidator().getValidator(schema);
    for (const input of inputs) assert.deepEqual(ours(input), sdk(input), JSON.stringify(input));
    assert.equal(ours({ pair_1: 'old' }).valid, true);
    assert.equal(ours({ pair_1: 'neither' }).valid, false);
  });

  it('reads the dialect a schema declares, as the SDK validator does', () => {
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', ...schema };
    const ours = new DefaultJsonSchemaValidator().getValidator(draft7);
    const sdk = new AjvJsonSchemaValidator().getValidator(draft7);
    for (const input of inputs) assert.deepEqual(ours(input), sdk(input), JSON.stringify(input));
  });
});
