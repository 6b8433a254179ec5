// The revisions mnemo says it serves are the ones the SDK serves.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  createMcpHandler,
  McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import {
  MODERN_REVISIONS,
  SERVED_REVISIONS,
  unsupportedRevision,
} from '../../src/transport/revisions.js';

it("names the 2026-era revisions the SDK's server/discover names", async () => {
  const handler = createMcpHandler(() => new McpServer({ name: 't', version: '1' }));
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const response = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: { _meta: meta },
      }),
    }),
  );
  const body = (await response.json()) as { result: { supportedVersions: string[] } };
  assert.deepEqual(body.result.supportedVersions, [...MODERN_REVISIONS]);
  assert.deepEqual(SERVED_REVISIONS, [...MODERN_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS]);
  await handler.close();
});

it('answers an unserved revision with -32022 naming every served one, its echo bounded', () => {
  const refused = unsupportedRevision(
    { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    'x'.repeat(5000),
  );
  assert.equal(refused?.error.code, -32022);
  assert.equal(refused?.id, 7);
  const data = refused?.error.data as { supported: string[]; requested: string };
  assert.deepEqual(data.supported, [...SERVED_REVISIONS]);
  assert.equal(data.requested.length, 64);
  assert.ok((refused?.error.message.length ?? 0) < 400);
  // A served header and no envelope: nothing to refuse.
  assert.equal(
    unsupportedRevision({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, '2025-06-18'),
    undefined,
  );
  // An envelope names the revisions served without a handshake, as server/discover does; an
  // initialize-era one is refused there (those open with initialize).
  const mixed = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-06-18' } },
  };
  assert.equal(unsupportedRevision(mixed)?.error.code, -32022);
  const modernOnly = unsupportedRevision(mixed)?.error.data as { supported?: string[] } | undefined;
  assert.deepEqual(modernOnly?.supported, [...MODERN_REVISIONS]);
  // A header that disagrees with the envelope is the SDK's to answer (-32020).
  const future = {
    ...mixed,
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v999' } },
  };
  assert.equal(unsupportedRevision(future, '2026-07-28'), undefined);
  assert.equal(unsupportedRevision(future, 'v999')?.error.code, -32022);
});
