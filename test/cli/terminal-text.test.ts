// What a token holder, an import or a synced note wrote reaches the person's terminal through
// mnemo search, promote and gc: as text, never as the terminal's own commands.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import { openTestMemory, sink, T0, testDir } from '../support.js';

/** Sets the window's title, writes the clipboard (OSC 52), clears the screen, a C1 CSI. */
const HOSTILE =
  'kettle \u001b]0;pwned\u0007 \u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u001b[1A\rfake line \u009b31m';

async function run(dataDir: string, argv: string[], days = 0) {
  const stdout = sink();
  const stderr = sink();
  const env = {
    MNEMO_LOG_LEVEL: 'silent',
    MNEMO_EMBEDDINGS: 'off',
    MNEMO_DATA_DIR: dataDir,
    MNEMO_NOW: String(T0 + days * 86_400),
  };
  const code = await main(argv, { env, stdout, stderr });
  return { code, text: stdout.text() + stderr.text() };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not reach the terminal
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

describe("the terminal: a memory's text is shown, never obeyed", () => {
  it('search, promote and gc print no control character a memory holds', async (t) => {
    const dir = testDir(t);
    const seeded = await openTestMemory({}, dir);
    const { memory_id } = await seeded.memory.writing.save({ content: HOSTILE });
    for (let i = 0; i < 6; i++) await seeded.memory.writing.touch({ memory_id });
    await seeded.opened.close();
    for (const [argv, days] of [
      [['search', 'kettle'], 0],
      [['promote', memory_id, '--force'], 0],
      [['gc'], 3650],
    ] as const) {
      const { code, text } = await run(dir, [...argv], days);
      assert.equal(code, 0, text);
      assert.match(text, /kettle/, `${argv[0]} shows the memory`);
      assert.doesNotMatch(text, CONTROL, `${argv[0]}: ${JSON.stringify(text)}`);
    }
    const { text } = await run(dir, ['search', 'kettle', '--json']);
    assert.doesNotMatch(text, CONTROL);
    assert.equal(JSON.parse(text).results[0].content, HOSTILE, '--json: the same text, escaped');
  });
});
