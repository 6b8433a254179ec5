import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/server';
import { countTokens } from '../../src/memory/context-pack.js';
import { PAGE_SIZE } from '../../src/resources/index.js';
import { openTestClient, type TestClient, tempDir } from '../support.js';

const text = (r: { contents: { text?: unknown; blob?: unknown }[] }, i = 0) =>
  r.contents[i]?.text as string;

async function rejects(promise: Promise<unknown>, code: number, pattern: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ProtocolError, `an McpError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

const promptText = (got: { messages: { content: unknown }[] }) =>
  (got.messages[0]?.content as { text?: string } | undefined)?.text ?? '';

async function save(t: TestClient, content: string, tags: string[] = []): Promise<string> {
  return (await t.ok<{ memory_id: string }>('save_memory', { content, tags })).memory_id;
}

describe('resources', () => {
  let t: TestClient;
  before(async () => {
    t = await openTestClient();
  });
  after(() => t.close());

  it('declares resources with subscribe, prompts, logging and completions', () => {
    const caps = t.client.getServerCapabilities();
    assert.equal(caps?.resources?.subscribe, true);
    assert.ok(caps?.prompts);
    assert.ok(caps?.logging);
    assert.ok(caps?.completions);
  });

  it('lists the templates', async () => {
    const { resourceTemplates } = await t.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate).sort(), [
      'mnemo://context{?topic,max_tokens}',
      'mnemo://help/{tool}',
      'mnemo://memory/{id}',
      'mnemo://vault/{+path}',
    ]);
  });

  it('reads a memory as Markdown with its properties and as JSON', async () => {
    const id = await save(t, 'Ralph the cat sleeps on the red rug.\nEvery afternoon.', ['pets']);
    const read = await t.client.readResource({ uri: `mnemo://memory/${id}` });
    assert.equal(read.contents.length, 2);
    assert.equal(read.contents[0]?.mimeType, 'text/markdown');
    assert.match(text(read), new RegExp(`^---\\nmemory_id: "${id}"\\n`));
    assert.match(text(read), /tags: \["pets"\]/);
    assert.match(text(read), /---\nRalph the cat sleeps on the red rug\.\nEvery afternoon\.\n$/);
    assert.equal(read.contents[1]?.mimeType, 'application/json');
    const json = JSON.parse(text(read, 1)) as { id: string; use_count: number; content: string };
    assert.equal(json.id, id);
    assert.equal(json.content, 'Ralph the cat sleeps on the red rug.\nEvery afternoon.');
    // Reading is not a use.
    assert.equal(json.use_count, 0);
  });

  it('reads the stats as memory_stats gives them', async () => {
    const stats = JSON.parse(text(await t.client.readResource({ uri: 'mnemo://stats' })));
    const tool = await t.ok<{ total: number }>('memory_stats');
    assert.equal(stats.total, tool.total);
    assert.ok(stats.total >= 1);
  });

  it('refuses unknown URIs, unknown ids and malformed variables', async () => {
    // Not found is -32602 with the URI in data (2026-07-28; the SDK answers every revision so).
    await rejects(t.client.readResource({ uri: 'mnemo://nothing' }), -32602, /no resource/);
    await rejects(t.client.readResource({ uri: 'https://example.com/x' }), -32602, /no resource/);
    await assert.rejects(t.client.readResource({ uri: 'mnemo://nothing' }), (error: unknown) => {
      assert.deepEqual((error as ProtocolError).data, { uri: 'mnemo://nothing' });
      return true;
    });
    await rejects(
      t.client.readResource({ uri: 'mnemo://memory/00000000-0000-4000-8000-000000000000' }),
      -32602,
      /not a known memory/,
    );
    await rejects(
      t.client.readResource({ uri: 'mnemo://memory/a%20b' }),
      -32602,
      /not a memory id/,
    );
    await rejects(t.client.readResource({ uri: 'mnemo://memory/%E0%A4%A' }), -32602, /percent/);
    await rejects(
      t.client.readResource({ uri: 'mnemo://context?max_tokens=ten' }),
      -32602,
      /max_tokens/,
    );
    await rejects(t.client.readResource({ uri: 'mnemo://context?x=1' }), -32602, /not "x"/);
    await rejects(
      t.client.readResource({ uri: 'mnemo://context?topic=a&topic=b' }),
      -32602,
      /takes topic once, not 2 times/,
    );
    await rejects(
      t.client.readResource({ uri: 'mnemo://context?max_tokens=500&max_tokens=900' }),
      -32602,
      /takes max_tokens once/,
    );
  });

  it('completes memory ids by prefix, live ones only', async () => {
    const id = await save(t, 'Completion target memory.');
    const done = await t.client.complete({
      ref: { type: 'ref/resource', uri: 'mnemo://memory/{id}' },
      argument: { name: 'id', value: id.slice(0, 6) },
    });
    assert.ok(done.completion.values.includes(id));
    assert.ok(done.completion.values.every((v) => v.startsWith(id.slice(0, 6))));
    const none = await t.client.complete({
      ref: { type: 'ref/resource', uri: 'mnemo://memory/{id}' },
      argument: { name: 'id', value: 'zzzz' },
    });
    assert.deepEqual(none.completion.values, []);
  });

  it('serves the tool guide: every tool in a line, and each one in full', async () => {
    const { tools } = await t.client.listTools();
    const index = text(await t.client.readResource({ uri: 'mnemo://help' }));
    for (const tool of tools) {
      assert.ok(index.includes(`- ${tool.name} (${tool.title}): ${tool.description}`), tool.name);
      const guide = text(await t.client.readResource({ uri: `mnemo://help/${tool.name}` }));
      assert.match(guide, new RegExp(`^# ${tool.name}: `));
      assert.ok(
        guide.length > (tool.description ?? '').length + 100,
        `${tool.name}'s guide says more`,
      );
    }
    const listed = (await t.client.listResources()).resources.map((r) => r.uri);
    assert.ok(listed.includes('mnemo://help'));
    await rejects(t.client.readResource({ uri: 'mnemo://help/nothing' }), -32602, /no tool/);
    const done = await t.client.complete({
      ref: { type: 'ref/resource', uri: 'mnemo://help/{tool}' },
      argument: { name: 'tool', value: 'search_' },
    });
    assert.deepEqual(done.completion.values, ['search_memory', 'search_unified']);
  });
});

describe('resources/list pages', () => {
  let t: TestClient;
  before(async () => {
    t = await openTestClient();
    for (let i = 0; i < PAGE_SIZE + 30; i++) {
      await save(t, `Memory number ${i} about topic ${i % 7}.`);
    }
  });
  after(() => t.close());

  it('pages through every memory once, stats and review first, with the cursor', async () => {
    // One page: the SDK's listResources() without a cursor gathers them all.
    const first = await t.client.request({ method: 'resources/list', params: {} });
    assert.equal(first.resources.length, PAGE_SIZE);
    assert.equal(first.resources[0]?.uri, 'mnemo://stats');
    assert.equal(first.resources[1]?.uri, 'mnemo://review');
    assert.ok(first.nextCursor);
    const second = await t.client.listResources({ cursor: first.nextCursor });
    assert.equal(second.nextCursor, undefined);
    const uris = [...first.resources, ...second.resources].map((r) => r.uri);
    const memories = uris.filter((u) => u.startsWith('mnemo://memory/'));
    assert.equal(memories.length, PAGE_SIZE + 30);
    assert.equal(new Set(memories).size, memories.length);
  });

  it('lists the memories liveliest first', async () => {
    const ids = (await t.client.listResources()).resources
      .filter((r) => r.uri.startsWith('mnemo://memory/'))
      .map((r) => decodeURIComponent(r.uri.slice('mnemo://memory/'.length)));
    const last = ids[ids.length - 1] as string;
    await t.ok('touch_memory', { memory_id: last });
    t.clock.advanceDays(2);
    const again = (await t.client.listResources()).resources;
    const first = again.find((r) => r.uri.startsWith('mnemo://memory/'));
    assert.equal(first?.uri, `mnemo://memory/${last}`);
  });

  it('refuses a malformed cursor and one of another listing', async () => {
    await rejects(t.client.listResources({ cursor: 'not a cursor' }), -32602, /cursor/);
    const foreign = Buffer.from(JSON.stringify({ k: 'prompts', o: 100 })).toString('base64url');
    await rejects(t.client.listResources({ cursor: foreign }), -32602, /cursor/);
    const otherNs = Buffer.from(
      JSON.stringify({ k: 'mnemo-resources', n: 'other', o: 100 }),
    ).toString('base64url');
    await rejects(t.client.listResources({ cursor: otherNs }), -32602, /cursor/);
    const past = Buffer.from(
      JSON.stringify({ k: 'mnemo-resources', n: 'default', o: 100_000 }),
    ).toString('base64url');
    await rejects(t.client.listResources({ cursor: past }), -32602, /past the end/);
  });
});

describe('the review queue, subscriptions and the client log', () => {
  let t: TestClient;
  before(async () => {
    t = await openTestClient();
  });
  after(() => t.close());

  it('lists fading memories most urgent first, bounded', async () => {
    const a = await save(t, 'The boiler code is 4471.');
    t.clock.advanceDays(3);
    const b = await save(t, 'The bins go out on Thursday.');
    t.clock.advanceDays(6); // a: 9 days (middle of the zone), b: 6 days (near its top)
    const review = JSON.parse(text(await t.client.readResource({ uri: 'mnemo://review' })));
    assert.equal(review.limit, 50);
    assert.deepEqual(
      review.memories.map((m: { memory_id: string }) => m.memory_id),
      [a, b],
    );
    assert.ok(review.memories[0].review_priority > review.memories[1].review_priority);
  });

  it('sends resources/updated for a subscribed memory after a touch, and not after unsubscribe', async () => {
    const id = await save(t, 'Subscribed memory.');
    const other = await save(t, 'Not subscribed.');
    const updates: string[] = [];
    let notify: () => void = () => {};
    t.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
      notify();
    });
    await t.client.subscribeResource({ uri: `mnemo://memory/${id}` });
    const arrived = new Promise<void>((resolve) => {
      notify = resolve;
    });
    await t.ok('touch_memory', { memory_id: other });
    await t.ok('touch_memory', { memory_id: id });
    await arrived;
    assert.deepEqual(updates, [`mnemo://memory/${id}`]);
    await t.client.unsubscribeResource({ uri: `mnemo://memory/${id}` });
    await t.ok('touch_memory', { memory_id: id });
    await t.client.ping();
    assert.equal(updates.length, 1);
    await rejects(
      t.client.subscribeResource({ uri: 'mnemo://memory/unknown-id' }),
      -32602,
      /no memory/,
    );
  });

  it('handles logging/setLevel and sends notifications/message on gc, filtered by level', async () => {
    const messages: { level: string; data: Record<string, unknown> }[] = [];
    t.client.setNotificationHandler('notifications/message', (n) => {
      messages.push({ level: n.params.level, data: n.params.data as Record<string, unknown> });
    });
    await t.client.setLoggingLevel('notice');
    const id = await save(t, 'Soon forgotten: the old wifi password hint.');
    t.clock.advanceDays(120);
    await t.ok('gc', { dry_run: true });
    await t.ok('gc', { dry_run: false });
    await t.client.ping();
    const gc = messages.filter((m) => m.data.event === 'gc');
    // The dry run is logged at debug, below notice.
    assert.equal(gc.length, 1);
    assert.equal(gc[0]?.level, 'notice');
    assert.equal(gc[0]?.data.dry_run, false);
    assert.ok((gc[0]?.data.memory_ids as string[] | undefined)?.includes(id));
    assert.ok(!JSON.stringify(messages).includes('wifi'), 'no content in the log');
  });

  it('sends notifications/message on a promotion and on the note it writes to the vault', async () => {
    const messages: { level: string; data: Record<string, unknown> }[] = [];
    t.client.setNotificationHandler('notifications/message', (n) => {
      messages.push({ level: n.params.level, data: n.params.data as Record<string, unknown> });
    });
    await t.client.setLoggingLevel('info');
    const id = await save(t, 'Use pnpm in the heron repo.');
    for (let i = 0; i < 5; i++) await t.ok('touch_memory', { memory_id: id });
    const { promoted } = await t.ok<{ promoted: { memory_id: string; path: string }[] }>(
      'promote_memory',
      { memory_id: id },
    );
    await t.client.ping();
    const promotion = messages.find((m) => m.data.event === 'promotion');
    assert.equal(promotion?.level, 'notice');
    assert.deepEqual(promotion?.data.promoted, promoted);
    const vault = messages.find((m) => m.data.event === 'vault');
    assert.equal(vault?.data.path, promoted[0]?.path, 'the note written is a vault event');
    // A note's path comes from its title, as in the vault; the content itself is not sent.
    assert.ok(!JSON.stringify(messages).includes('Use pnpm in the heron repo'));
  });
});

describe('context pack: resource and prompts', () => {
  let t: TestClient;
  let anchorDir: string;
  before(async () => {
    anchorDir = tempDir('mnemo-anchor-');
    const anchor = path.join(anchorDir, 'me.md');
    fs.writeFileSync(anchor, '# About me\nI am Alice. I prefer short answers.\n');
    t = await openTestClient({ MNEMO_ANCHOR_FILE: anchor });
    for (let i = 0; i < 40; i++) {
      await save(
        t,
        `Deploy note ${i}: the deploy runs after the standup, step ${i} ${'x'.repeat(i * 5)}.`,
      );
    }
    await save(t, 'The cat is called Ralph.');
  });
  after(async () => {
    await t.close();
    fs.rmSync(anchorDir, { recursive: true, force: true });
  });

  it('lists the prompts with described arguments', async () => {
    const { prompts } = await t.client.listPrompts();
    const recall = prompts.find((p) => p.name === 'recall');
    const review = prompts.find((p) => p.name === 'review');
    assert.ok(recall?.description && review?.description);
    const topic = recall.arguments?.find((a) => a.name === 'topic');
    assert.equal(topic?.required, false);
    assert.ok(topic?.description);
    assert.ok(recall.arguments?.find((a) => a.name === 'max_tokens')?.description);
    assert.ok(review.arguments?.every((a) => a.description));
  });

  it('recall with a topic: the anchor from MNEMO_ANCHOR_FILE, then the matching memories', async () => {
    const got = await t.client.getPrompt({ name: 'recall', arguments: { topic: 'cat' } });
    const message = got.messages[0]?.content;
    assert.equal(message?.type, 'text');
    const body = (message as { text: string }).text;
    assert.match(body, /^# Context pack: cat\n/);
    // Named by its file only: the folder is the server's.
    assert.match(body, /## Anchor \(me\.md\)\n# About me\nI am Alice/);
    assert.ok(!body.includes(anchorDir), 'no absolute path of the server');
    assert.match(body, /The cat is called Ralph\./);
    assert.doesNotMatch(body, /Deploy note/);
    assert.ok(countTokens(body) <= 2000);
  });

  it('recall without a topic lists the liveliest memories', async () => {
    const got = await t.client.getPrompt({ name: 'recall' });
    const body = promptText(got);
    assert.match(body, /^# Context pack\n/);
    assert.match(body, /## Memories \(liveliest first\)/);
    assert.match(body, /Deploy note/);
  });

  it('keeps within the token budget, counted as ceil(characters / 4)', async () => {
    for (const budget of [150, 300, 800]) {
      const got = await t.client.getPrompt({
        name: 'recall',
        arguments: { topic: 'deploy', max_tokens: String(budget) },
      });
      const body = promptText(got);
      assert.ok(countTokens(body) <= budget, `${countTokens(body)} > ${budget}`);
      assert.match(body, /ceil\(characters \/ 4\)/);
    }
    const small = await t.client.readResource({
      uri: 'mnemo://context?topic=deploy&max_tokens=300',
    });
    const large = await t.client.readResource({
      uri: 'mnemo://context?topic=deploy&max_tokens=3000',
    });
    assert.ok(countTokens(text(small)) <= 300);
    assert.ok(text(large).length > text(small).length);
    assert.match(text(large), /^# Context pack: deploy\n/);
  });

  it('refuses a max_tokens that is not a number', async () => {
    await assert.rejects(
      t.client.getPrompt({ name: 'recall', arguments: { max_tokens: 'lots' } }),
      /max_tokens/,
    );
  });

  it('reads the anchor and lists it', async () => {
    const anchor = await t.client.readResource({ uri: 'mnemo://anchor' });
    assert.match(text(anchor), /I am Alice/);
    const { resources } = await t.client.listResources();
    assert.deepEqual(
      resources.slice(0, 3).map((r) => r.uri),
      ['mnemo://stats', 'mnemo://anchor', 'mnemo://review'],
    );
  });

  it('review walks the fading memories and asks to observe them', async () => {
    t.clock.advanceDays(8);
    const got = await t.client.getPrompt({ name: 'review', arguments: { limit: '3' } });
    const body = promptText(got);
    assert.match(body, /^These 3 memories are fading/);
    assert.match(body, /observe_memory_usage/);
    assert.equal(body.match(/^\d+\. /gm)?.length, 3);
  });
});
