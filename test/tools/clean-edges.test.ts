// What a remote caller (a tool result, a resource read) is told when a file of the server fails:
// what failed and where to look, never the server's absolute paths (a note's is a slug of its
// content); and a path no file can have is the caller's mistake (-32602), not mnemo's fault.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { capturingLogger, errorText, openTestClient, type TestClient } from '../support.js';

describe('the edges a remote caller sees', () => {
  let t: TestClient;
  let log: ReturnType<typeof capturingLogger>;
  beforeEach(async () => {
    log = capturingLogger();
    t = await openTestClient({}, { logger: log.logger });
    fs.mkdirSync(path.join(t.vault, 'mnemo'), { recursive: true });
    fs.writeFileSync(path.join(t.vault, 'mnemo', 'kitten.md'), '# Kitten\n');
  });
  afterEach(() => t.close());

  it('a vault path with a NUL is -32602 naming the fix, not an fs failure', async () => {
    for (const uri of [
      'mnemo://vault/mnemo/kit%00ten.md',
      'mnemo://vault/%00',
      'mnemo://vault/a%00/../b',
    ]) {
      await assert.rejects(t.client.readResource({ uri }), (error: unknown) => {
        assert.ok(error instanceof ProtocolError, String(error));
        assert.equal(error.code, ProtocolErrorCode.InvalidParams, `${uri}: ${error.message}`);
        assert.match(error.message, /NUL|\.\. part/);
        assert.ok(!error.message.includes(t.dir), error.message);
        return true;
      });
    }
  });

  it('a tool that fails on a file of the server answers what failed, without the path; the log says it hid one, without it', async () => {
    const { memory_id } = await t.ok<{ memory_id: string }>('save_memory', {
      content: 'Kitten asleep on the rug',
    });
    // A file where mnemo's folder of the vault should be: no user, root included, can write there.
    fs.rmSync(path.join(t.vault, 'mnemo'), { recursive: true });
    fs.writeFileSync(path.join(t.vault, 'mnemo'), 'in the way');
    const result = await t.call('promote_memory', { memory_id, force: true });
    assert.equal(result.isError, true);
    const text = errorText(result);
    assert.match(
      text,
      /^cannot write to the vault \((MemoryError|VaultWriteError)\): a file or folder of the server could not be used/,
    );
    assert.ok(!text.includes(t.dir), text);
    assert.ok(!/kitten/i.test(text), text);
    const lines = JSON.stringify(log.lines);
    assert.match(lines, /shown to the caller without it/);
    assert.ok(!/kitten-asleep/.test(lines), 'no note path in the log');
  });

  it('property: any URI read answers a result or a JSON-RPC error, never with an absolute path of the server', async () => {
    const uri = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => `mnemo://vault/${s}`),
      fc.string({ maxLength: 40 }).map((s) => `mnemo://vault/${encodeURIComponent(s)}`),
      fc
        .array(fc.constantFrom('..', '.', 'mnemo', 'kitten.md', '', '%00', '%2F', '/', t.dir), {
          maxLength: 6,
        })
        .map((parts) => `mnemo://vault/${parts.join('/')}`),
      fc.string({ maxLength: 40 }).map((s) => `mnemo://${s}`),
      fc.string({ maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(uri, async (u) => {
        try {
          const read = await t.client.readResource({ uri: u });
          assert.ok(Array.isArray(read.contents));
        } catch (error) {
          assert.ok(error instanceof ProtocolError, `${u}: ${String(error)}`);
          assert.notEqual(error.code, ProtocolErrorCode.InternalError, `${u}: ${error.message}`);
          // The caller's own text may come back; the server's folders never do.
          const echoed = u.includes(t.dir) || decodeURIComponentSafe(u).includes(t.dir);
          if (!echoed) assert.ok(!error.message.includes(t.dir), `${u}: ${error.message}`);
        }
      }),
      { numRuns: 300, interruptAfterTimeLimit: 4_000 },
    );
  });
});

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
