import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCode, TransientError, UserError } from '../../src/platform/errors.js';

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
