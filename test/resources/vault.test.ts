import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/server';
import { openTestClient, type TestClient, tempDir } from '../support.js';

const textOf = (r: { contents: Record<string, unknown>[] }) =>
  (r.contents[0]?.text as string) ?? '';

async function refused(t: TestClient, uri: string, pattern: RegExp) {
  await assert.rejects(t.client.readResource({ uri }), (error: unknown) => {
    assert.ok(error instanceof ProtocolError);
    assert.match(error.message, pattern);
    assert.doesNotMatch(error.message, /TOP SECRET/);
    return true;
  });
}

describe('mnemo://vault/{+path}', () => {
  let t: TestClient;
  let outside: string;
  before(async () => {
    const dir = tempDir();
    outside = tempDir('mnemo-outside-');
    fs.writeFileSync(path.join(outside, 'secret.md'), 'TOP SECRET\n');
    const vault = path.join(dir, 'vault');
    fs.mkdirSync(path.join(vault, 'mnemo'), { recursive: true });
    fs.mkdirSync(path.join(vault, '.obsidian'));
    fs.writeFileSync(path.join(vault, '.obsidian', 'app.json'), '{}');
    fs.writeFileSync(
      path.join(vault, 'mnemo', 'kitten.md'),
      '# Kitten\nA kitten sleeps on the rug.\n',
    );
    fs.writeFileSync(path.join(vault, 'mnemo', 'kettle.md'), '# Kettle\n');
    fs.writeFileSync(path.join(vault, 'anchor.md'), 'Anchor in the vault.\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(vault, 'escape.md'));
    fs.symlinkSync(outside, path.join(vault, 'elsewhere'));
    t = await openTestClient({}, { dir, watchVault: true });
    await t.opened.readiness.wait('vault');
  });
  after(async () => {
    await t.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('reads a note by its vault path', async () => {
    const read = await t.client.readResource({ uri: 'mnemo://vault/mnemo/kitten.md' });
    assert.equal(textOf(read), '# Kitten\nA kitten sleeps on the rug.\n');
    const encoded = await t.client.readResource({ uri: 'mnemo://vault/mnemo%2Fkitten.md' });
    assert.equal(textOf(encoded), '# Kitten\nA kitten sleeps on the rug.\n');
  });

  it('refuses .., absolute paths, links out of the vault and hidden files', async () => {
    await refused(t, 'mnemo://vault/../../etc/passwd', /\.\. part/);
    await refused(t, 'mnemo://vault/mnemo/../kitten.md', /\.\. part/);
    await refused(t, 'mnemo://vault/%2E%2E/secret.md', /\.\. part/);
    await refused(t, 'mnemo://vault//etc/passwd', /absolute/);
    await refused(
      t,
      `mnemo://vault/${encodeURIComponent(path.join(outside, 'secret.md'))}`,
      /absolute/,
    );
    await refused(t, 'mnemo://vault/escape.md', /outside the vault .* link/);
    await refused(t, 'mnemo://vault/elsewhere/secret.md', /outside the vault .* link/);
    await refused(t, 'mnemo://vault/.obsidian/app.json', /hidden/);
    // Notes are not in resources/list: the answer points at the completion of their paths.
    await refused(
      t,
      'mnemo://vault/mnemo/missing.md',
      /no note .*complete mnemo:\/\/vault\/\{\+path\}/,
    );
  });

  it('completes note paths', async () => {
    const done = await t.client.complete({
      ref: { type: 'ref/resource', uri: 'mnemo://vault/{+path}' },
      argument: { name: 'path', value: 'mnemo/k' },
    });
    assert.deepEqual(done.completion.values, ['mnemo/kettle.md', 'mnemo/kitten.md']);
  });

  it('takes anchor.md in the vault root as the anchor without MNEMO_ANCHOR_FILE', async () => {
    const anchor = await t.client.readResource({ uri: 'mnemo://anchor' });
    assert.equal(textOf(anchor), 'Anchor in the vault.\n');
    const pack = await t.client.readResource({ uri: 'mnemo://context' });
    assert.match(textOf(pack), /## Anchor \(anchor\.md\)\nAnchor in the vault\./);
  });
});

describe('without a vault', () => {
  it('answers that there is none', async () => {
    const t = await openTestClient({}, {});
    try {
      // The default vault folder is made at the first promotion: here it does not exist yet.
      await assert.rejects(
        t.client.readResource({ uri: 'mnemo://vault/mnemo/x.md' }),
        /no note|no vault/,
      );
      await assert.rejects(t.client.readResource({ uri: 'mnemo://anchor' }), /no anchor/);
    } finally {
      await t.close();
    }
  });
});
