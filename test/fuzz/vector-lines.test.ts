import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { dequantise } from '../../src/search/vector-quantise.js';
import {
  JsonlVectorStore,
  VECTORS_FILE,
  VECTORS_SIDECAR_FILE,
} from '../../src/storage/jsonl/vectors.js';
import type { StoredVector } from '../../src/storage/vector-store.js';
import { withColumn, withHeader } from '../storage/sidecar-craft.js';
import { openTestMemory, recordingLogger, tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
} from './hostile.js';

// vectors.jsonl and its snapshot vectors.idx are read back from the data dir, so they are hostile
// too (a sync tool, a disk, a hand): whatever their bytes, a load gives vectors whose values are
// finite, or warns and falls back (the line skipped and its vector computed again, the snapshot
// not used and the lines read whole); never a throw. A store opened over them answers searches
// as it does over the vectors it wrote.

/** `s` of a line as a file may hold it: JSON.stringify writes no 1e999 (read back as Infinity). */
const RAW_SCALES = ['1e999', '-1e999', '-0', '0', '1e308', '-1', '5e-324', '"0.01"', 'null', '2'];

type LineFields = Record<string, unknown>;

/** A line of vectors.jsonl as the store writes it. */
const lineOf = (v: StoredVector): LineFields => ({
  id: v.id,
  model: v.model,
  hash: v.hash,
  v: Buffer.from(v.values.buffer, v.values.byteOffset, v.values.byteLength).toString('base64'),
  s: v.scale,
});

/** `fields` as one line of JSON text, `s` written raw when it is a number JSON cannot write. */
function lineText(fields: LineFields, rawScale?: string): string {
  const text = JSON.stringify(fields).replace(/\n/g, ' ');
  if (rawScale === undefined) return text;
  return text.startsWith('{') && text !== '{}'
    ? text.replace(/^\{/, `{"s":${rawScale},`).replace(/,"s":[^,}]*/, '')
    : text;
}

/** A base64 text that is not of `length` bytes: a vector of another dimension, or garbage. */
const otherValues = (length: number) =>
  fc
    .oneof(
      fc.uint8Array({ maxLength: 2 * length }).map((b) => Buffer.from(b).toString('base64')),
      hostileText,
    )
    .map((v) => (Buffer.from(v, 'base64').length === length ? `${v}AAAA` : v));

/**
 * One line derived from `base` (a good line of `dims` values): kept, or with fields damaged
 * such that it is no vector of the same id, model and text with other values of the same length
 * (which no reader can tell from a good one).
 */
const damagedLine = (base: LineFields, dims: number) => {
  // One damage each: a field of another value or type, `s` written raw, a field left out.
  const one = fc.oneof(
    fc.record({
      set: fc.constantFrom('id', 'model', 'hash'),
      to: fc.oneof(hostileText, hostileJson),
    }),
    fc.record({ set: fc.constant('v'), to: fc.oneof(otherValues(dims), hostileJson) }),
    fc.record({ set: fc.constant('s'), to: fc.oneof(hostileNumber, hostileJson) }),
    fc.record({ raw: fc.constantFrom(...RAW_SCALES) }),
    fc.record({ drop: fc.constantFrom('id', 'model', 'hash', 'v', 's') }),
  );
  return fc
    .tuple(fc.array(one, { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([damages, proto]) => {
      const fields: LineFields = { ...base };
      let raw: string | undefined;
      for (const d of damages) {
        if ('set' in d) fields[d.set] = d.to;
        else if ('raw' in d) raw = d.raw;
        else delete fields[d.drop];
      }
      const entries = Object.entries(fields);
      // A whole good vector under `__proto__`: JSON.parse keeps it an own key, never the line.
      if (proto) entries.push(['__proto__', { ...base }]);
      return lineText(objectOf(entries), raw);
    });
};

/** A vectors.jsonl made of good lines, damaged ones and anything, each good vector kept or not. */
const vectorsFile = (bases: LineFields[], dims: number) =>
  fc
    .tuple(
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: fc.nat(bases.length - 1).map((i) => ({ good: i })) },
          {
            weight: 4,
            arbitrary: fc
              .nat(bases.length - 1)
              .chain((i) => damagedLine(bases[i] as LineFields, dims))
              .map((text) => ({ text })),
          },
          { weight: 1, arbitrary: hostileText.map((text) => ({ text })) },
          {
            weight: 1,
            arbitrary: hostileJson.map((v) => ({
              text: (JSON.stringify(v) ?? 'null').replace(/\n/g, ' '),
            })),
          },
        ),
        { maxLength: 24 },
      ),
      fc.boolean(),
    )
    .map(([plan, torn]) => {
      const lines = plan.map((p) =>
        'good' in p ? JSON.stringify(bases[p.good]) : p.text.replace(/[\n\r]/g, ' '),
      );
      return { lines, torn, text: `${lines.join('\n')}${torn ? '' : '\n'}` };
    });

/** Each visited vector as a search may use it: strings, int8 values, and finite once scaled. */
function assertUsable(vector: StoredVector): void {
  assert.equal(typeof vector.id, 'string');
  assert.equal(typeof vector.model, 'string');
  assert.equal(typeof vector.hash, 'string');
  assert.ok(vector.values instanceof Int8Array, 'values are not int8');
  assert.ok(Number.isFinite(vector.scale), `a scale of ${vector.scale}`);
  const floats = dequantise(vector, vector.values.length);
  assert.ok(floats?.every(Number.isFinite), `values not finite at scale ${vector.scale}`);
}

async function loadAll(dir: string) {
  const log = recordingLogger();
  const store = new JsonlVectorStore(path.join(dir, VECTORS_FILE), log.logger);
  const seen = new Map<string, StoredVector>();
  let visited = 0;
  try {
    const entries = await store.load((v) => {
      visited++;
      assertUsable(v);
      seen.set(v.id, { ...v, values: v.values.slice() });
    });
    return { seen, visited, entries, log };
  } finally {
    await store.close();
  }
}

/** A few vectors of 8 values, as the store writes them. */
const DIMS = 8;
const vectorOf = (i: number): StoredVector => ({
  id: `m-${i}`,
  model: i % 7 === 0 ? 'other' : 'static',
  hash: `h${i}`,
  values: Int8Array.from({ length: DIMS }, (_, d) => ((i * 31 + d * 7) % 255) - 127),
  scale: 0.001 * (1 + (i % 5)),
});

describe('fuzz: the vector store read back (src/storage/jsonl/vectors.ts)', () => {
  it('vectors.jsonl of any lines: each a vector with finite values, or skipped with a warning', async () => {
    const bases = Array.from({ length: 6 }, (_, i) => lineOf(vectorOf(i)));
    await fc.assert(
      fc.asyncProperty(
        vectorsFile(bases, DIMS),
        timeBoxed(3, async ({ lines, text, torn }) => {
          const dir = tempDir('mnemo-fuzz-vectors-');
          try {
            fs.writeFileSync(path.join(dir, VECTORS_FILE), text);
            const { visited, log } = await loadAll(dir);
            const warned = log
              .warnings()
              .filter((w) => w.file === VECTORS_FILE)
              .reduce((n, w) => n + ((w as { lines?: number }).lines ?? 0), 0);
            // A last line without its newline is torn: skipped (and cut off) whatever it holds.
            const whole = torn ? lines.slice(0, -1) : lines;
            const written =
              whole.filter((l) => l.trim() !== '').length + (torn && lines.at(-1) ? 1 : 0);
            assert.equal(
              visited + warned,
              written,
              `of ${written} lines ${visited} were vectors and ${warned} warned of`,
            );
            assertNoPollution();
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }),
      ),
      bounded(300),
    );
  });

  describe('vectors.idx of any bytes', () => {
    let template: string;
    let original: Buffer;
    /** What vectors.jsonl gives read whole, by id (the last of each). */
    let whole: Map<string, StoredVector>;
    let used = 0;

    before(async () => {
      template = tempDir('mnemo-fuzz-vectors-idx-');
      const log = recordingLogger();
      const store = new JsonlVectorStore(path.join(template, VECTORS_FILE), log.logger);
      await store.load(() => {});
      const all = Array.from({ length: 1100 }, (_, i) => vectorOf(i));
      store.append(all);
      store.snapshot(() => all);
      await store.close();
      original = fs.readFileSync(path.join(template, VECTORS_SIDECAR_FILE));
      fs.renameSync(
        path.join(template, VECTORS_SIDECAR_FILE),
        path.join(template, `${VECTORS_SIDECAR_FILE}.kept`),
      );
      whole = (await loadAll(template)).seen;
    });

    after(() => fs.rmSync(template, { recursive: true, force: true }));

    const COLUMN_NAMES = [
      'ids',
      'idEnds',
      'hashes',
      'hashEnds',
      'models',
      'valueEnds',
      'scales',
      'values',
    ] as const;
    const bytesAt = fc.array(fc.record({ at: fc.nat(), byte: fc.nat({ max: 255 }) }), {
      minLength: 1,
      maxLength: 8,
    });
    const damage = fc.oneof(
      fc.record({
        kind: fc.constant('bytes' as const),
        changes: fc.array(fc.record({ at: fc.nat(), byte: fc.nat({ max: 255 }) }), {
          maxLength: 8,
        }),
        cut: fc.option(fc.nat(), { nil: undefined }),
        grow: fc.option(fc.uint8Array({ maxLength: 64 }), { nil: undefined }),
      }),
      // Whole (size and checksum right) but of other column bytes: a checksum anyone can compute.
      fc.record({
        kind: fc.constant('column' as const),
        name: fc.constantFrom(...COLUMN_NAMES),
        changes: bytesAt,
      }),
      // A float of the scales column: NaN, infinities, negatives, huge, tiny.
      fc.record({
        kind: fc.constant('scale' as const),
        at: fc.nat(),
        value: fc.oneof(
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308),
          hostileNumber,
        ),
      }),
      fc.record({
        kind: fc.constant('header' as const),
        field: fc.constantFrom('meta', 'models', 'columns', 'column', 'shape', 'log'),
        value: hostileJson,
        column: fc.nat(),
      }),
    );

    it('is used whole, or not at all with one warning and vectors.jsonl read whole', async () => {
      await fc.assert(
        fc.asyncProperty(
          damage,
          timeBoxed(5, async (d) => {
            const dir = tempDir('mnemo-fuzz-vectors-idx-');
            try {
              fs.copyFileSync(path.join(template, VECTORS_FILE), path.join(dir, VECTORS_FILE));
              const file = path.join(dir, VECTORS_SIDECAR_FILE);
              fs.writeFileSync(file, original);
              if (d.kind === 'bytes') {
                let bytes = Buffer.from(original);
                for (const { at, byte } of d.changes) bytes[at % bytes.length] = byte;
                if (d.cut !== undefined) bytes = bytes.subarray(0, d.cut % (bytes.length + 1));
                if (d.grow !== undefined) bytes = Buffer.concat([bytes, d.grow]);
                fs.writeFileSync(file, bytes);
              } else if (d.kind === 'column') {
                withColumn(file, d.name, (column) => {
                  for (const { at, byte } of d.changes) column[at % column.length] = byte;
                });
              } else if (d.kind === 'scale') {
                withColumn(file, 'scales', (column) => {
                  column.writeDoubleLE(d.value, 8 * (d.at % (column.length >> 3)));
                });
              } else {
                withHeader(file, (h) => {
                  const header = { ...h } as Record<string, unknown>;
                  const columns = [...((header.columns ?? []) as unknown[])];
                  if (d.field === 'models') header.meta = { models: d.value };
                  else if (d.field === 'column') columns[d.column % columns.length] = d.value;
                  else header[d.field] = d.value;
                  if (d.field === 'column') header.columns = columns;
                  return header;
                });
              }
              const { seen, visited, log } = await loadAll(dir);
              const warnings = log.warnings().filter((w) => w.file === VECTORS_SIDECAR_FILE);
              assert.ok(warnings.length <= 1, 'more than one warning');
              if (warnings.length === 1) {
                assert.deepEqual(seen, whole, 'not used, but vectors.jsonl not read whole');
              } else {
                used++;
                assert.equal(visited, whole.size, 'used, but not of every vector');
              }
              assertNoPollution();
            } finally {
              fs.rmSync(dir, { recursive: true, force: true });
            }
          }),
        ),
        {
          ...bounded(200),
          // The first run damages nothing: the snapshot is then used.
          examples: [[{ kind: 'bytes', changes: [], cut: undefined, grow: undefined }]],
        },
      );
      assert.ok(used > 0, 'no run used the snapshot');
    });
  });

  describe('a store opened with embeddings over a hostile vectors.jsonl', () => {
    const ENV = { MNEMO_EMBEDDINGS: 'static', MNEMO_HYBRID_WEIGHT: '1' };
    const CONTENTS = [
      'The kitten was sleeping on the rug all afternoon.',
      'Quarterly tax filing is due at the end of March.',
      'The deploy of the billing service failed on Friday.',
      'Ralph prefers tea over coffee in the morning.',
      'The puppy naps by the fire after its walk.',
      'Our flight to Lisbon leaves at seven on Sunday.',
      'The garden needs watering twice a week in summer.',
      'Invoices are sent to the accounting team every month.',
    ];
    const QUERIES = [
      'cat resting on the carpet',
      'taxes',
      'dog sleeping near the hearth',
      'travel',
    ];
    let template: string;
    let expected: unknown;
    let bases: LineFields[];

    async function answers(dir: string) {
      const m = await openTestMemory(ENV, dir);
      try {
        await m.opened.readiness.wait('embeddings');
        await m.opened.semantic.drain();
        const out = [];
        for (const query of QUERIES) {
          const { results } = await m.memory.recall.search({ query, top_k: 5 });
          for (const r of results) assert.ok(Number.isFinite(r.score), `a score of ${r.score}`);
          out.push(results.map((r) => [r.memory_id, r.score.toFixed(6)]));
        }
        return out;
      } finally {
        await m.opened.close();
      }
    }

    before(async () => {
      template = tempDir('mnemo-fuzz-vectors-store-');
      const m = await openTestMemory(ENV, template);
      try {
        await m.opened.readiness.wait('embeddings');
        for (const content of CONTENTS) await m.memory.writing.save({ content });
        await m.opened.semantic.drain();
      } finally {
        await m.opened.close();
      }
      expected = await answers(template);
      bases = fs
        .readFileSync(path.join(template, VECTORS_FILE), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LineFields);
      assert.equal(bases.length, CONTENTS.length);
    });

    after(() => fs.rmSync(template, { recursive: true, force: true }));

    it('answers searches as over the vectors it wrote', async () => {
      const dims = Buffer.from(bases[0]?.v as string, 'base64').length;
      await fc.assert(
        fc.asyncProperty(
          vectorsFile(bases, dims),
          timeBoxed(4, async ({ text }) => {
            const dir = tempDir('mnemo-fuzz-vectors-store-');
            try {
              for (const name of fs.readdirSync(template)) {
                if (name === VECTORS_FILE || name.startsWith('.lock')) continue;
                fs.cpSync(path.join(template, name), path.join(dir, name), { recursive: true });
              }
              fs.writeFileSync(path.join(dir, VECTORS_FILE), text);
              assert.deepEqual(await answers(dir), expected);
              assertNoPollution();
            } finally {
              fs.rmSync(dir, { recursive: true, force: true });
            }
          }),
        ),
        bounded(40),
      );
    });
  });
});
