import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { isNamespace } from '../../src/storage/engine.js';
import { FILES, JsonlStore } from '../../src/storage/jsonl/store.js';
import {
  isTombstone,
  MAX_SUPERSEDES,
  MEMORY_STATUSES,
  newMemoryRecord,
  RELATION_TYPES,
  RecordError,
  storedShape,
  toMemoryRecord,
  toRelationRecord,
} from '../../src/storage/records.js';
import { tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
  withProtoKey,
} from './hostile.js';

// How a log line becomes a record. memories.jsonl and relations.jsonl are edited by hand, synced
// between machines and written by cortexgraph: any line may be anything.

const T0 = 1_767_225_600;

/** A line that looks like a memory, each field possibly hostile, unknown fields and `__proto__`. */
const memoryish = fc
  .record(
    {
      id: fc.oneof(hostileText, hostileNumber, fc.constant(null)),
      content: fc.oneof(hostileText, hostileNumber, hostileJson),
      meta: fc.oneof(
        hostileJson,
        fc.record({ tags: hostileJson, source: hostileJson, extra: hostileJson }),
      ),
      entities: hostileJson,
      created_at: fc.oneof(hostileNumber, hostileText),
      last_used: fc.oneof(hostileNumber, hostileText),
      use_count: hostileNumber,
      strength: hostileNumber,
      status: fc.oneof(fc.constantFrom(...MEMORY_STATUSES), hostileText),
      promoted_at: fc.oneof(hostileNumber, hostileText, fc.constant(null)),
      versions: hostileJson,
      superseded_by: fc.oneof(hostileText, hostileJson),
      supersedes: fc.oneof(hostileJson, fc.array(hostileText, { maxLength: 120 })),
      namespace: fc.oneof(fc.constantFrom('default', 'bob', 'Bob', '../x', ''), hostileText),
      embed: hostileJson,
    },
    { requiredKeys: [] },
  )
  .chain((fields) =>
    fc
      .array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'x'), hostileJson), {
        maxLength: 2,
      })
      .map((extra) => objectOf([...Object.entries(fields), ...extra])),
  );

const relationish = fc
  .record(
    {
      id: fc.oneof(hostileText, hostileNumber),
      from_memory_id: fc.oneof(hostileText, hostileNumber),
      to_memory_id: fc.oneof(hostileText, fc.constant(null)),
      relation_type: fc.oneof(fc.constantFrom(...RELATION_TYPES), hostileText),
      strength: hostileNumber,
      created_at: fc.oneof(hostileNumber, hostileText),
      metadata: hostileJson,
    },
    { requiredKeys: [] },
  )
  .map((fields) => objectOf([...Object.entries(fields), ['__proto__', { polluted: true }]]));

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Parsed again from its stored line, as a start reads it. */
const reread = (value: unknown) => JSON.parse(JSON.stringify(storedShape(value)));

describe('fuzz: a log line to a record (src/storage/records.ts)', () => {
  it('a memory line is a well-formed record or a RecordError, and reads back the same', () => {
    fc.assert(
      fc.property(
        fc.oneof(memoryish, hostileJson),
        timeBoxed(3, (raw) => {
          let record: ReturnType<typeof toMemoryRecord>;
          try {
            record = toMemoryRecord(JSON.parse(JSON.stringify(raw)));
          } catch (error) {
            assert.ok(error instanceof RecordError, `not a RecordError: ${error}`);
            assert.ok((error as Error).message.length > 0);
            return;
          }
          assert.equal(typeof record.id, 'string');
          assert.notEqual(record.id, '');
          assert.equal(typeof record.content, 'string');
          for (const n of [
            record.created_at,
            record.last_used,
            record.use_count,
            record.strength,
          ]) {
            assert.ok(Number.isFinite(n), `a number that is not finite: ${n}`);
          }
          assert.ok(record.strength >= 0 && record.strength <= 2);
          assert.ok(record.use_count >= 0);
          assert.ok(MEMORY_STATUSES.includes(record.status));
          assert.ok(record.meta.tags.every((t) => typeof t === 'string'));
          assert.ok(record.entities.every((t) => typeof t === 'string'));
          // The supersession links: ids other than its own, or absent; a bounded, unique list.
          if (record.superseded_by !== undefined) {
            assert.equal(typeof record.superseded_by, 'string');
            assert.ok(record.superseded_by !== '' && record.superseded_by !== record.id);
          }
          if (record.supersedes !== undefined) {
            assert.ok(record.supersedes.length > 0 && record.supersedes.length <= MAX_SUPERSEDES);
            assert.equal(new Set(record.supersedes).size, record.supersedes.length);
            assert.ok(record.supersedes.every((s) => typeof s === 'string' && s !== record.id));
          }
          // What is written back is read back as the same record: unknown fields survive.
          assert.deepEqual(reread(toMemoryRecord(reread(record))), reread(record));
          assertNoPollution();
        }),
      ),
      bounded(500),
    );
  });

  it('a record is never stored as a tombstone, whatever fields it carries', () => {
    // Found by the mnemo import fuzzer: `{"memory":{"id":"x","content":"c","_deleted":true}}`
    // was imported, written with its `_deleted` kept, and so read back as a deletion.
    const memory = toMemoryRecord({ id: 'x', content: 'c', _deleted: true });
    assert.equal(isTombstone(storedShape(memory)), false);
    const relation = toRelationRecord({
      id: 'r',
      from_memory_id: 'a',
      to_memory_id: 'b',
      _deleted: true,
    });
    assert.equal(isTombstone(storedShape(relation)), false);
    fc.assert(
      fc.property(
        memoryish,
        timeBoxed(2, (raw) => {
          try {
            const record = toMemoryRecord(JSON.parse(JSON.stringify({ ...raw, _deleted: true })));
            assert.equal(isTombstone(reread(record)), false);
          } catch (error) {
            assert.ok(error instanceof RecordError);
          }
        }),
      ),
      bounded(200),
    );
  });

  it('a relation line is a well-formed relation or a RecordError', () => {
    fc.assert(
      fc.property(
        fc.oneof(relationish, hostileJson),
        timeBoxed(3, (raw) => {
          try {
            const relation = toRelationRecord(JSON.parse(JSON.stringify(raw)));
            assert.ok(RELATION_TYPES.includes(relation.relation_type));
            assert.ok(Number.isFinite(relation.strength));
            assert.equal(typeof relation.from_memory_id, 'string');
            assert.deepEqual(reread(toRelationRecord(reread(relation))), reread(relation));
          } catch (error) {
            assert.ok(error instanceof RecordError, `not a RecordError: ${error}`);
          }
          assertNoPollution();
        }),
      ),
      bounded(500),
    );
  });
});

/** A line of a log file: a good record, or what a crash, a hand edit or an attacker leaves. */
const garbageLine = fc.oneof(
  hostileText.map((t) => t.replace(/\n/g, ' ')),
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  memoryish.map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{"id":"g1","content":"x","created_at":1e999}',
    '{"id":"g2","content":"x","strength":-1e308,"use_count":1e400}',
    '{"id":"g3","content":"x","namespace":"../../etc"}',
    withProtoKey('{"id":"g4","content":"x",}'),
    '{"id":"g5","content":"x","meta":{"__proto__":{"polluted":1},"extra":{"__proto__":{"polluted":2}}}}',
    '{"id":"g6",',
    '\u0000\u0000\u0000',
    '[1,2,3]',
    '"a string"',
    '{"id":"g7","_deleted":"yes"}',
    '{"id":"g8","content":"x","status":"promoted","promoted_to":"../../../../tmp/x.md"}',
    `{"id":"g9","content":"${'a'.repeat(100_000)}"}`,
  ),
);

describe('fuzz: a data dir of hostile logs (src/storage/jsonl/jsonl-file.ts, store.ts)', () => {
  it('opens: good records load, bad lines are quarantined, nothing throws', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant(null), garbageLine), { minLength: 1, maxLength: 12 }),
        fc.array(garbageLine, { maxLength: 4 }),
        fc.constantFrom('', '{"id":"torn","cont', '\u00ff\u00fe'),
        timeBoxed(3, async (plan, relationLines, tail) => {
          const dir = tempDir('mnemo-fuzz-jsonl-');
          try {
            // A null in the plan is a good memory; its id is one no garbage line names.
            const good = new Map<string, string>();
            const lines = plan.map((line, i) => {
              if (line !== null) return line;
              const record = newMemoryRecord(`good-${i}`, `content ${i}`, T0);
              good.set(record.id, record.content);
              return JSON.stringify(record);
            });
            const text = `${lines.join('\n')}\n${tail}`;
            fs.writeFileSync(path.join(dir, FILES.memories), text);
            fs.writeFileSync(path.join(dir, FILES.relations), `${relationLines.join('\n')}\n`);
            const store = await JsonlStore.open({
              dataDir: dir,
              logger: pino({ level: 'silent' }),
              clock: () => T0,
            });
            try {
              for (const [id, content] of good) {
                assert.equal(store.memories.get(id)?.content, content, `good memory ${id} lost`);
              }
              for (const record of store.memories.values()) {
                assert.equal(typeof record.content, 'string');
                assert.ok(Number.isFinite(record.created_at));
              }
              // A write still works after such a load, and what it wrote reads back.
              await store.transact(() => ({
                result: undefined,
                memories: [newMemoryRecord('after', 'written after', T0)],
              }));
            } finally {
              store.close();
            }
            // Every line that is not JSON is kept in quarantine, word for word.
            // As the disk holds it: a lone surrogate became U+FFFD.
            const unparsable = Buffer.from(text, 'utf8')
              .toString('utf8')
              .split('\n')
              .slice(0, -1)
              .filter((line) => line.trim() !== '' && !parses(line));
            const quarantine = path.join(dir, FILES.quarantine);
            const quarantined = new Set(
              (fs.existsSync(quarantine) ? fs.readFileSync(quarantine, 'utf8') : '')
                .split('\n')
                .filter(Boolean)
                .map((line) => (JSON.parse(line) as { line: string }).line),
            );
            for (const line of unparsable) assert.ok(quarantined.has(line), `not kept: ${line}`);
            const again = await JsonlStore.open({
              dataDir: dir,
              logger: pino({ level: 'silent' }),
              clock: () => T0,
            });
            try {
              assert.equal(again.memories.get('after')?.content, 'written after');
              for (const [id, content] of good)
                assert.equal(again.memories.get(id)?.content, content);
              for (const id of again.memories.keys()) {
                const ns = again.namespaceOfMemory(id);
                assert.ok(ns !== undefined && isNamespace(ns), `memory ${id} in namespace ${ns}`);
              }
            } finally {
              again.close();
            }
            assertNoPollution();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(100),
    );
  });
});
