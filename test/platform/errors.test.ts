import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  errorCode,
  jsonSyntaxWhere,
  remoteMessage,
  TransientError,
  UserError,
} from '../../src/platform/errors.js';

const errno = (code: string) => Object.assign(new Error(`${code}: failed, write`), { code });

describe('UserError', () => {
  it('keeps the field it is about and the cause, and a transient one is a user error too', () => {
    const cause = errno('ENOSPC');
    const error = new UserError('tags must be a list', 'tags', { cause });
    assert.equal(error.field, 'tags');
    assert.equal(error.cause, cause);
    assert.ok(new TransientError('busy: retry') instanceof UserError);
    assert.equal(new TransientError('busy: retry').name, 'TransientError');
  });
});

describe('errorCode', () => {
  it('is the errno code of the error, or of the first cause that has one', () => {
    assert.equal(errorCode(errno('EIO')), 'EIO');
    assert.equal(errorCode(new Error('wrapped', { cause: errno('ENOSPC') })), 'ENOSPC');
  });

  it('else the message, or the thrown value as text', () => {
    assert.equal(errorCode(new Error('no code here')), 'no code here');
    assert.equal(errorCode('a string'), 'a string');
    assert.equal(errorCode(undefined), 'undefined');
  });
});

describe('remoteMessage: a user error for a caller on the other side of a connection', () => {
  it('keeps a message without an absolute path as it is', () => {
    for (const m of [
      'tags must be a list',
      'see mnemo://vault/{+path}',
      '"mnemo/kitten.md" is hidden',
    ]) {
      assert.deepEqual(remoteMessage(new UserError(m)), { message: m, hidden: false });
    }
  });

  it('says what failed, as the message began to, and hides every path (spaces in it too)', () => {
    const hidden = remoteMessage(
      new UserError(
        'cannot write to the vault at /home/a/My Vault/mnemo/kitten asleep.md (permission denied): make /home/a/My Vault writable',
      ),
    );
    assert.equal(hidden.hidden, true);
    assert.match(
      hidden.message,
      /^cannot write to the vault \(UserError\): a file or folder of the server could not be used/,
    );
    assert.doesNotMatch(hidden.message, /home|Vault|kitten|asleep|permission/);
    assert.match(
      remoteMessage(new TransientError('the data dir /d is busy')).message,
      /^the data dir \(TransientError\): .*retry in a moment/,
    );
    assert.match(remoteMessage(new UserError('C:\\Users\\a is bad')).message, /^UserError: /);
  });

  // Linear time is checked where every regex of src is (test/security/regex-linear.test.ts: the
  // trailing-space regex this replaced with a loop was quadratic); here, that 1 MB runs of each
  // character the path search backs up on still give the answer.
  it('1 MB of spaces, of [, of #, of / and of ( before a path: the path is still hidden', () => {
    for (const fill of [' ', '[', '#', '/', '(', ' a', '=/']) {
      const text = `a${fill.repeat((1 << 20) / fill.length)}b /x`;
      const { message, hidden } = remoteMessage(new UserError(text));
      assert.equal(hidden, true, JSON.stringify(fill));
      assert.doesNotMatch(message, /\/x/, JSON.stringify(fill));
    }
  });

  it('property: no part of any absolute path in a message reaches the caller', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const segment = fc.stringMatching(/^[A-Za-z0-9 ._-]{1,12}$/).map((s) => `S${s}Q`);
    const absolute = fc
      .array(segment, { minLength: 1, maxLength: 4 })
      .map((s) => `/${s.join('/')}`);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(word, absolute), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(' ', ' (', ' "', ': '),
        (parts, glue) => {
          const message = parts.join(glue);
          const out = remoteMessage(new UserError(message)).message;
          // Each path segment is fenced by S...Q: none of them, whole, may be in the answer.
          for (const p of parts.filter((x) => x.startsWith('/'))) {
            for (const seg of p.slice(1).split('/')) {
              assert.ok(!out.includes(seg), `${message}\n-> ${out}`);
            }
          }
        },
      ),
      { numRuns: 500, interruptAfterTimeLimit: 3_000 },
    );
  });
});

describe('jsonSyntaxWhere', () => {
  it('is the line and column of where JSON.parse stopped, or nothing when it does not say', () => {
    const text = '{\n  "a": 1\n  "b": 2\n}';
    let error: unknown;
    try {
      JSON.parse(text);
    } catch (e) {
      error = e;
    }
    assert.equal(jsonSyntaxWhere(error, text), ' at line 3, column 3');
    assert.equal(jsonSyntaxWhere(new Error('no position'), text), '');
  });
});
