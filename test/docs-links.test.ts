// The README and the guide in docs/: every relative link reaches a file of the repository, and
// every #anchor a heading of the page it names (GitHub's slugs), so a reader who follows the
// front door's links never lands on nothing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The page's text outside fenced code blocks, where a `#` line is no heading. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced;
  });
}

/** GitHub's anchor of a heading: lower case, punctuation out, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of prose(fs.readFileSync(path.join(root, page), 'utf8'))) {
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(slug(heading[1] as string));
  }
  return anchors;
}

describe('the README and the guide', () => {
  it('the README stays a front door: at most 300 lines', () => {
    const lines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines <= 300, `README.md has ${lines} lines: move detail into docs/`);
  });

  it("the README's JSON snippets parse as they would be pasted", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```json\n([^`]*)```/g)].map((m) => m[1] as string);
    assert.ok(blocks.length >= 4, `${blocks.length} JSON snippets`);
    for (const block of blocks) assert.doesNotThrow(() => JSON.parse(block), block);
  });

  it("`npm run claude-config` prints an entry with this node and this clone's built CLI", () => {
    const printed = JSON.parse(
      execFileSync('npm', ['run', '--silent', 'claude-config'], { cwd: root, encoding: 'utf8' }),
    ) as { mcpServers: { mnemo: { command: string; args: string[] } } };
    assert.deepEqual(printed.mcpServers.mnemo, {
      command: process.execPath,
      args: [path.join(root, 'dist', 'cli.js'), 'stdio'],
    });
  });

  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const broken: string[] = [];
      for (const line of prose(fs.readFileSync(path.join(root, page), 'utf8'))) {
        for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1] as string;
          if (/^[a-z]+:/.test(target)) continue;
          const [file = '', anchor] = target.split('#');
          const linked = file === '' ? page : path.join(path.dirname(page), file);
          if (!fs.existsSync(path.join(root, linked))) {
            broken.push(`${target} (no file ${linked})`);
          } else if (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) {
            broken.push(`${target} (no heading #${anchor} in ${linked})`);
          }
        }
      }
      assert.deepEqual(broken, []);
    });
  }
});
