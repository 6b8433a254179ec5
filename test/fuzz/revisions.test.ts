// The revision check every message meets first (/mcp, /mcp/<label>, stdio) and the gateway's
// conversion of params and results between revisions, given anything: they never throw, answer
// with a bounded error or nothing, and keep what is not theirs to change.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { paramsForUpstream, resultForCaller } from '../../src/gateway/eras.js';
import { SERVED_REVISIONS, unsupportedRevision } from '../../src/transport/revisions.js';
import { bounded, hostileText, timeBoxed } from './hostile.js';

const KEY = 'io.modelcontextprotocol/protocolVersion';
const revision = fc.oneof(fc.constantFrom(...SERVED_REVISIONS), hostileText, fc.jsonValue());
const message = fc.oneof(
  fc.jsonValue(),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), hostileText, fc.jsonValue()),
    method: hostileText,
    params: fc.oneof(
      fc.jsonValue(),
      fc.record({ _meta: fc.oneof(fc.jsonValue(), fc.dictionary(fc.constant(KEY), revision)) }),
    ),
  }),
);

it('the revision check answers anything with nothing or a small -32022', () => {
  fc.assert(
    fc.property(
      message,
      fc.option(hostileText, { nil: undefined }),
      timeBoxed(3, (m, header) => {
        const answer = unsupportedRevision(m, header);
        if (answer === undefined) return;
        assert.equal(answer.error.code, -32022);
        const id = (m as { id?: unknown } | null)?.id;
        const valid = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
        assert.deepEqual(answer.id, valid ? id : null);
        // Bounded but for the request's own id, which JSON-RPC gives back as it came.
        const own = JSON.stringify(answer.id).length;
        assert.ok(JSON.stringify(answer).length < 2_000 + own, 'bounded');
      }),
    ),
    bounded(2_000),
  );
});

it("the gateway's conversions take any params and result without throwing", () => {
  const object = fc.dictionary(hostileText, fc.jsonValue());
  fc.assert(
    fc.property(
      fc.option(object, { nil: undefined }),
      object,
      fc.constantFrom('modern', 'legacy'),
      fc.constantFrom('modern', 'legacy'),
      fc.constantFrom('tools/list', 'tools/call', 'resources/read', 'prompts/get', 'x'),
      timeBoxed(3, (params, result, caller, upstream, method) => {
        const sent = paramsForUpstream(
          params,
          { era: upstream, version: upstream === 'modern' ? '2026-07-28' : '2025-06-18' },
          { name: 'mnemo', version: '0' },
        );
        if (sent !== undefined) assert.equal(typeof sent, 'object');
        try {
          const back = resultForCaller(method, result, caller, upstream, undefined, 'echo');
          assert.equal(typeof back, 'object');
        } catch (error) {
          // A result the caller's revision cannot carry is the upstream's error, said as such.
          assert.match((error as Error).message, /upstream "echo"/);
        }
      }),
    ),
    bounded(2_000),
  );
});
