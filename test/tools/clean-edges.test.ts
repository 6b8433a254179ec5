// What a remote caller (a tool result, a resource read) is told when a file of the server fails:
// what failed and where to look, never the server's absolute paths (a note's is a slug of its
// content); and a path no file can have is the caller's mistake (-32602), not mnemo's fault.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it, type TestContext } from 'node:test';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import type { PromoteMemoryOutput } from '../../src/contract/promote-memory.js';
import {
  capturingLogger,
  errorText,
  openTestClient,
  openTestMemory,
  type TestClient,
  testDir,
} from '../support.js';

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

  // One memory's note cannot be written, another's can: the failure is told in the result, as a
  // thrown error is told (the note's name is a slug of the memory's words: "my-bank-pin-is-4242").
  for (const [how, provoke] of [
    [
      'the disk refuses its note',
      (ctx: TestContext) => {
        const open = fs.openSync;
        ctx.mock.method(fs, 'openSync', (...args: Parameters<typeof fs.openSync>) => {
          const [file, flags] = args;
          if (String(file).endsWith('my-bank-pin-is-4242.md') && typeof flags === 'number') {
            throw Object.assign(new Error(`EACCES: permission denied, open '${String(file)}'`), {
              code: 'EACCES',
            });
          }
          return open(...args);
        });
      },
    ],
    [
      'a link out of the vault is at its note name',
      () => {
        const outside = path.join(t.dir, 'outside.md');
        fs.writeFileSync(outside, 'not a note of the vault');
        fs.symlinkSync(outside, path.join(t.vault, 'mnemo', 'my-bank-pin-is-4242.md'));
      },
    ],
  ] as const) {
    it(`promote_memory auto_detect writes the notes it can; of one it cannot (${how}) it says which memory and why, without the path or the note's name`, async (ctx) => {
      const secret = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'My bank PIN is 4242',
      });
      const other = await t.ok<{ memory_id: string }>('save_memory', {
        content: 'Teapot whistles at noon',
      });
      // Used often: both qualify for auto_detect.
      for (let i = 0; i < 5; i++) {
        await t.memory.writing.touch({ memory_id: secret.memory_id });
        await t.memory.writing.touch({ memory_id: other.memory_id });
      }
      provoke(ctx);
      const result = await t.call('promote_memory', { auto_detect: true });
      assert.ok(!result.isError, errorText(result));
      const done = result.structuredContent as PromoteMemoryOutput;
      assert.deepEqual(
        done.promoted.map((p) => p.memory_id),
        [other.memory_id],
      );
      assert.equal(done.failed.length, 1);
      const [failed] = done.failed;
      assert.equal(failed?.memory_id, secret.memory_id);
      assert.match(
        failed?.error ?? '',
        /^(cannot write to the vault|the note name for memory \S+) \((VaultWriteError|VaultPathError)\): a file or folder of the server could not be used; its operator finds which, and the fix, in its log$/,
      );
      const text = errorText(result);
      assert.ok(text.includes(`${secret.memory_id} failed: ${failed?.error}`), text);
      for (const told of [failed?.error ?? '', text]) {
        assert.ok(!told.includes(t.dir), told);
        assert.ok(!/my-bank-pin|4242/i.test(told), told);
      }
      assert.equal(t.store.memories.get(secret.memory_id)?.status, 'active');
      assert.equal(t.store.memories.get(other.memory_id)?.status, 'promoted');
      const lines = JSON.stringify(log.lines);
      assert.match(lines, /shown to the caller without it/);
      assert.ok(!/my-bank-pin|4242/i.test(lines), 'no note name in the log');
    });
  }

  it("a memory whose line changed on disk: open_memories answers what failed, and neither the answer nor the log quotes the line's words", async (ctx) => {
    const dir = testDir(ctx);
    const first = await openTestMemory({}, dir, { sidecarMinLines: 0 });
    const { memory_id } = await first.memory.writing.save({
      content: 'My bank PIN is 4242, the safe code 9911',
    });
    // Lines after it: the next start uses the sidecar, and reads the line only when asked for.
    for (let i = 0; i < 40; i++) {
      await first.memory.writing.save({ content: `filler memory ${i}, words to take some room` });
    }
    await first.opened.close();
    // Changed in place, its length kept: V8's message would quote `..." bank ",""is 4242, t"...`.
    const file = path.join(dir, 'memories.jsonl');
    const at = Buffer.byteLength(fs.readFileSync(file, 'utf8').split('PIN ')[0] ?? '');
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, '",""', at);
    fs.closeSync(fd);

    const logged = capturingLogger();
    const again = await openTestClient({}, { dir, logger: logged.logger, sidecarMinLines: 0 });
    ctx.after(() => again.close());
    const result = await again.call('open_memories', { memory_ids: [memory_id] });
    const words = /bank|PIN|4242|safe|9911/;
    const lines = JSON.stringify(logged.lines);
    assert.ok(!words.test(lines), lines);
    const text = errorText(result);
    assert.ok(!words.test(text) && !text.includes(dir), text);
    assert.equal(result.isError, true);
    assert.match(
      text,
      /^a memory's line \(StoreError\): a file or folder of the server could not be used; its operator finds which, and the fix, in its log$/,
    );
    assert.match(lines, /shown to the caller without it/);
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
