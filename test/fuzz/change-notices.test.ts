// A change notice (`<schema>:<namespace>:<version>` on the mnemo_changes channel) is data: any
// role of the database may notify on that channel. Whatever the payload, the reader takes a
// namespace's name and a version in digits of this schema, or nothing, and never throws.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isNamespace } from '../../src/storage/engine.js';
import { noticeOf } from '../../src/storage/postgres/schema.js';
import { bounded, hostileText } from './hostile.js';

const SCHEMA = 'mnemo_test';
const namespace = fc.stringMatching(/^[a-z0-9_-]{1,64}$/);
const version = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

describe('change notices (property)', () => {
  it('any payload: a namespace and a whole version of this schema, or nothing', () => {
    const payload = fc.oneof(
      hostileText,
      hostileText.map((tail) => `${SCHEMA}:${tail}`),
      fc
        .tuple(fc.oneof(namespace, hostileText), fc.oneof(hostileText, fc.double().map(String)))
        .map(([ns, v]) => `${SCHEMA}:${ns}:${v}`),
    );
    fc.assert(
      fc.property(payload, (text) => {
        const notice = noticeOf(text, SCHEMA);
        if (notice === undefined) return;
        assert.ok(isNamespace(notice.ns), notice.ns);
        assert.ok(Number.isSafeInteger(notice.version) && notice.version >= 0, text);
        const head = `${SCHEMA}:${notice.ns}:`;
        assert.ok(text.startsWith(head), text);
        assert.match(text.slice(head.length), /^\d{1,15}$/);
        assert.equal(Number(text.slice(head.length)), notice.version);
      }),
      bounded(2000),
    );
  });

  it("what a write notifies reads back; another schema's is not taken", () => {
    fc.assert(
      fc.property(namespace, version, (ns, v) => {
        if (String(v).length > 15) return;
        assert.deepEqual(noticeOf(`${SCHEMA}:${ns}:${v}`, SCHEMA), { ns, version: v });
        assert.equal(noticeOf(`other:${ns}:${v}`, SCHEMA), undefined);
        assert.equal(noticeOf(`${SCHEMA}x:${ns}:${v}`, SCHEMA), undefined);
      }),
      bounded(2000),
    );
  });

  it('refuses what is not a version in digits or not a namespace', () => {
    for (const bad of ['', ' 1', '1e3', '-1', '1.5', 'Infinity', '0x10', '1'.repeat(16)]) {
      assert.equal(noticeOf(`${SCHEMA}:default:${bad}`, SCHEMA), undefined, bad);
    }
    for (const bad of ['', 'Default', 'a b', 'x'.repeat(65), '../x']) {
      assert.equal(noticeOf(`${SCHEMA}:${bad}:1`, SCHEMA), undefined, bad);
    }
  });
});
