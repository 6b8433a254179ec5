// The token file's errors are read by a person at a terminal and by whoever reads the logs: they
// name the place to fix, never any part of a token.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadGatewayConfig } from '../../src/gateway/config.js';
import { parseTokenFile, TokenFileError } from '../../src/transport/tokens.js';
import { tempDir } from '../support.js';

const TOKEN = '5f0c2a9be17d4e3fa8b6c0d9e2f1a7b3';

/** Whether `message` holds any 6 characters in a row of `secret`. */
function showsPartOf(message: string, secret: string): boolean {
  for (let i = 0; i + 6 <= secret.length; i++) {
    if (message.includes(secret.slice(i, i + 6))) return true;
  }
  return false;
}

function errorOf(text: string): string {
  try {
    parseTokenFile(text, 'tokens.json');
  } catch (error) {
    assert.ok(error instanceof TokenFileError, String(error));
    return error.message;
  }
  return '';
}

describe('the token file: a JSON syntax error', () => {
  it('says where (line and column) and shows no part of a token, even where V8 quotes the text', () => {
    const message = errorOf(`{\n  "${TOKEN}": ["a"],\n  "${TOKEN.slice(4)}abcd": x\n}`);
    assert.match(
      message,
      /MNEMO_TOKENS \(tokens\.json\), its JSON: it cannot be read: not valid JSON/,
    );
    assert.ok(!showsPartOf(message, TOKEN), message);
    const placed = errorOf(`{"${TOKEN}": ["a"] "b"}`);
    assert.match(placed, /at line 1, column 44/);
    assert.ok(!showsPartOf(placed, TOKEN), placed);
  });

  it('property: a token file broken anywhere (a character cut, added or changed) is refused without any 6 characters of its tokens', () => {
    const hexToken = fc
      .array(fc.constantFrom(...'0123456789abcdef'), { minLength: 16, maxLength: 48 })
      .map((c) => c.join(''));
    fc.assert(
      fc.property(
        fc.uniqueArray(hexToken, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom('cut', 'add', 'change'),
        fc.constantFrom(...'{}[]",: x\n\\'),
        (tokens, at, how, char) => {
          const whole = JSON.stringify(
            Object.fromEntries(tokens.map((token) => [token, ['a']])),
            null,
            how === 'change' ? 2 : undefined,
          );
          const i = at % whole.length;
          const broken =
            how === 'cut'
              ? whole.slice(0, i) + whole.slice(i + 1)
              : how === 'add'
                ? whole.slice(0, i) + char + whole.slice(i)
                : whole.slice(0, i) + char + whole.slice(i + 1);
          const message = errorOf(broken);
          for (const token of tokens) {
            assert.ok(!showsPartOf(message, token), `${message}\nshows part of ${token}`);
          }
        },
      ),
      { numRuns: 500, interruptAfterTimeLimit: 3_000 },
    );
  });

  it('the gateway config (headers with tokens in it) is said to be bad JSON without its text', (t) => {
    const dir = tempDir();
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'gateway.json');
    fs.writeFileSync(
      file,
      // A token written without its quotes: V8 would quote the text from there.
      `{"mcpServers": {"a": {"headers": {"authorization": c${TOKEN}}}}}`,
    );
    assert.throws(
      () => loadGatewayConfig(file),
      (error: Error) => {
        assert.match(error.message, /is not valid JSON/);
        assert.ok(!showsPartOf(error.message, TOKEN), error.message);
        return true;
      },
    );
  });

  it('the gateway config: a FIFO is refused at once (it would hang the start)', {
    skip: process.platform === 'win32' && 'no mkfifo',
  }, (t) => {
    const dir = tempDir();
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const fifo = path.join(dir, 'gateway.json');
    execFileSync('mkfifo', [fifo]);
    assert.throws(
      () => loadGatewayConfig(fifo),
      /cannot read the gateway config .*not a regular file/,
    );
  });
});
