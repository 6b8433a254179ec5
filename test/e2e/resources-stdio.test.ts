// The resources, prompts and client log over real stdio, from the built CLI.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { makeTempDir, removeDir, startClient } from './helpers.js';

describe('mnemo stdio: resources and prompts', () => {
  it('reads, subscribes, logs and gives the context pack over stdio', async () => {
    const dir = makeTempDir();
    const anchor = path.join(dir, 'anchor-file.md');
    fs.writeFileSync(anchor, 'Anchor over stdio.\n');
    const c = await startClient(dir, { env: { MNEMO_ANCHOR_FILE: anchor } });
    try {
      const { memory_id: id } = await c.ok<{ memory_id: string }>('save_memory', {
        content: 'Stdio resources work.',
      });
      const read = await c.client.readResource({ uri: `mnemo://memory/${id}` });
      assert.equal(read.contents.length, 2);
      const updated = new Promise<string>((resolve) => {
        c.client.setNotificationHandler('notifications/resources/updated', (n) =>
          resolve(n.params.uri),
        );
      });
      await c.client.subscribeResource({ uri: `mnemo://memory/${id}` });
      await c.ok('touch_memory', { memory_id: id });
      assert.equal(await updated, `mnemo://memory/${id}`);

      const logged = new Promise<Record<string, unknown>>((resolve) => {
        c.client.setNotificationHandler('notifications/message', (n) =>
          resolve(n.params.data as Record<string, unknown>),
        );
      });
      await c.client.setLoggingLevel('debug');
      await c.ok('gc', { dry_run: true });
      assert.equal((await logged).event, 'gc');

      const pack = await c.client.getPrompt({ name: 'recall', arguments: { topic: 'stdio' } });
      const body = (pack.messages[0]?.content as { text?: string } | undefined)?.text ?? '';
      assert.match(body, /Anchor over stdio\./);
      assert.match(body, /Stdio resources work\./);
    } finally {
      await c.close();
      removeDir(dir);
    }
  });
});
