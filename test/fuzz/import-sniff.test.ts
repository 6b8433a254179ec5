import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { newMemoryRecord } from '../../src/storage/records.js';
import { importInto } from '../../src/transfer/import.js';
import { mnemoSource } from '../../src/transfer/mnemo-format.js';
import { serverMemorySource } from '../../src/transfer/sources/server-memory.js';
import { ImportSourceError } from '../../src/transfer/sources/source-error.js';
import type { ImportSource, ImportSummary } from '../../src/transfer/types.js';
import { openTestMemory, T0, type TestMemory, tempDir } from '../support.js';
import {
  assertNoPollution,
  bounded,
  hostileJson,
  hostileNumber,
  hostileText,
  objectOf,
  timeBoxed,
} from './hostile.js';

// What import-formats.test.ts always writes right: server-memory's first line (the sniff of the
// format, and of the one-document memory.json) and the mnemo export's header. Whatever they are,
// the import gives a summary whose refusals name their place and reason, or the source's own
// ImportSourceError naming the file, the --from and the fix; never another throw.

let m: TestMemory;
let run = 0;

before(async () => {
  m = await openTestMemory();
});

after(async () => {
  await m.close();
});

/** The summary of importing `file` (dry run, then for real), or the ImportSourceError it gave. */
async function importOf(
  source: ImportSource,
  file: string,
  ns: string,
): Promise<ImportSummary | ImportSourceError> {
  const options = { engine: m.store.namespace(ns), source, path: file, clock: () => T0 };
  let dry: ImportSummary;
  try {
    dry = await importInto({ ...options, dryRun: true });
  } catch (error) {
    if (!(error instanceof ImportSourceError)) throw error;
    assert.ok(error.message.includes(file), `the error does not name the file: ${error.message}`);
    assert.ok(
      error.message.startsWith(`--from ${source.format}: `),
      `the error does not name --from: ${error.message}`,
    );
    assert.match(error.message, /: (give|start|make|import)/, 'the error tells no fix');
    // The real run refuses the file alike.
    await assert.rejects(importInto(options), ImportSourceError);
    assertNoPollution();
    return error;
  }
  const real = await importInto(options);
  assert.deepEqual(real.refused, dry.refused, 'the dry run refused other entries');
  for (const summary of [dry, real]) {
    const accounted =
      summary.imported +
      summary.relations +
      summary.forgotten +
      summary.skipped_existing +
      summary.refused.length;
    assert.equal(accounted, summary.read, 'entries read and accounted for differ');
    for (const { where, why } of summary.refused) {
      assert.ok(where.startsWith(file), `a refusal not placed in the file: ${where}`);
      assert.ok(why.length > 0, 'a refusal without a reason');
    }
  }
  assertNoPollution();
  return real;
}

/** `build` in a folder of its own (removed after), imported into a namespace of its own. */
async function inFolder(
  source: ImportSource,
  build: (dir: string, ns: string) => { file: string; good: string[] },
): Promise<{ outcome: ImportSummary | ImportSourceError; good: string[]; ns: string }> {
  const dir = tempDir('mnemo-fuzz-sniff-');
  const ns = `sniff-${run++}`;
  try {
    const { file, good } = build(dir, ns);
    return { outcome: await importOf(source, file, ns), good, ns };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function assertImported(ns: string, good: string[]): void {
  const contents = [...m.store.namespace(ns).memories.values()].map((r) => r.content);
  for (const text of good) assert.ok(contents.includes(text), `good item ${text} not imported`);
}

const entityOf = (name: string, observations: string[]) => ({
  type: 'entity',
  name,
  entityType: 'thing',
  observations,
});

/** An object some of whose fields are the ones a reader looks for, with hostile values. */
const objectish = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(fc.record(fields, { requiredKeys: [] }), fc.boolean())
    .map(([v, proto]) =>
      objectOf([
        ...Object.entries(v),
        ...(proto ? [['__proto__', { polluted: 1 }] as [string, unknown]] : []),
      ]),
    );

/** JSON of `value`, as JSON.stringify writes it, on several lines, or with hostile bytes about. */
const written = (value: fc.Arbitrary<unknown>) =>
  fc
    .tuple(
      value,
      fc.constantFrom('line', 'pretty', 'bom', 'crlf', 'trailing', 'cut', 'leading-blank'),
    )
    .map(([v, how]) => {
      const line = JSON.stringify(v) ?? 'null';
      switch (how) {
        case 'line':
          return line;
        case 'pretty':
          return JSON.stringify(v, null, 2) ?? 'null';
        case 'bom':
          return `\ufeff${line}`;
        case 'crlf':
          return (JSON.stringify(v, null, 1) ?? 'null').replace(/\n/g, '\r\n');
        case 'trailing':
          return `${line} x`;
        case 'cut':
          return line.slice(0, Math.max(1, line.length >> 1));
        default:
          return `\n  \n${line}`;
      }
    });

const typeField = fc.oneof(
  fc.constantFrom('entity', 'relation', undefined, null, 'graph', ''),
  hostileJson,
);

/** A first line of server-memory's file: an entity, a relation, a document, or anything. */
const firstLine = fc.oneof(
  hostileText,
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  written(
    objectish({
      type: typeField,
      name: fc.oneof(hostileText, hostileNumber, fc.constant(null)),
      entityType: hostileJson,
      observations: fc.oneof(fc.array(hostileText, { maxLength: 3 }), hostileJson),
    }),
  ),
  written(
    objectish({
      type: typeField,
      from: hostileText,
      to: fc.oneof(hostileText, fc.constant(null)),
      relationType: hostileJson,
    }),
  ),
  written(objectish({ type: typeField, entities: hostileJson, relations: hostileJson })),
  // What --from server-memory is given by mistake: a mnemo or cortexgraph record, an export header.
  fc.constantFrom(
    JSON.stringify(newMemoryRecord('m-1', 'a memory', T0)),
    '{"format":"mnemo-export","version":1,"namespace":"x","exported_at":0}',
    '{',
    '[',
    '{"entities":',
    '{"entities":[]}',
    '[{"type":"entity","name":"x"}]',
    '{"type":"entity"}{"type":"entity"}',
  ),
);

/** A server-memory document: `{"entities": [...], "relations": [...]}`, each part hostile. */
const documentPlan = fc.record({
  entities: fc.oneof(
    { weight: 3, arbitrary: fc.array(fc.oneof(fc.constant(null), hostileJson), { maxLength: 8 }) },
    { weight: 1, arbitrary: hostileJson.map((v) => ({ value: v })) },
  ),
  relations: fc.oneof(
    fc.array(
      fc.oneof(
        hostileJson,
        objectish({
          from: fc.oneof(hostileText, fc.constantFrom('good-0', 'good-1')),
          to: fc.oneof(hostileText, fc.constantFrom('good-0', 'good-1'), fc.constant(null)),
          relationType: hostileJson,
        }),
      ),
      { maxLength: 4 },
    ),
    hostileJson,
  ),
  // Keys besides: a hostile "type" too (server-memory writes none at the document's level).
  others: fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('type', '__proto__', 'constructor'), hostileText),
      hostileJson,
    ),
    { maxLength: 3 },
  ),
  how: fc.constantFrom('line', 'pretty', 'crlf', 'leading-blank', 'trailing'),
});

describe('fuzz: the first line and header of an import file (src/transfer)', () => {
  it('--from server-memory: any first line is read, or the file refused by ImportSourceError', async () => {
    await fc.assert(
      fc.asyncProperty(
        firstLine,
        timeBoxed(3, async (first) => {
          const { outcome, good, ns } = await inFolder(serverMemorySource, (dir, ns) => {
            const good = [0, 1].map((i) => `${ns} good observation ${i}`);
            const lines = [
              first,
              ...good.map((text, i) => JSON.stringify(entityOf(`${ns}-good-${i}`, [text]))),
            ];
            const file = path.join(dir, 'memory.jsonl');
            fs.writeFileSync(file, `${lines.join('\n')}\n`);
            return { file, good };
          });
          // Read as lines (else the whole file, not one document, is refused): the rest imports.
          if (!(outcome instanceof ImportSourceError)) assertImported(ns, good);
        }),
      ),
      bounded(150),
    );
  });

  it('--from server-memory: any memory.json document gives refusals by place, or ImportSourceError', async () => {
    await fc.assert(
      fc.asyncProperty(
        documentPlan,
        timeBoxed(3, async (plan) => {
          const { outcome, good, ns } = await inFolder(serverMemorySource, (dir, ns) => {
            const good: string[] = [];
            let entities: unknown = 'value' in plan.entities ? plan.entities.value : undefined;
            if (Array.isArray(plan.entities)) {
              entities = plan.entities.map((e, i) => {
                if (e !== null) return e;
                const text = `${ns} good observation ${i}`;
                good.push(text);
                // As read_graph gives it: entities without "type".
                const { type: _, ...entity } = entityOf(`${ns}-good-${i}`, [text]);
                return entity;
              });
            }
            const document = objectOf([
              ...plan.others,
              ['entities', entities],
              ['relations', plan.relations],
            ]);
            const json = JSON.stringify(document);
            const text =
              plan.how === 'line'
                ? json
                : plan.how === 'pretty'
                  ? JSON.stringify(document, null, 2)
                  : plan.how === 'crlf'
                    ? JSON.stringify(document, null, 1).replace(/\n/g, '\r\n')
                    : plan.how === 'leading-blank'
                      ? `\n \n${json}`
                      : `${json}\n{"type":"entity","name":"x"}`;
            const file = path.join(dir, 'memory.json');
            fs.writeFileSync(file, `${text}\n`);
            // A document with an "entities" list: its good entities import, whatever else it holds.
            const whole = plan.how !== 'trailing' && Array.isArray(entities);
            return { file, good: whole ? good : [] };
          });
          if (good.length > 0) {
            assert.ok(
              !(outcome instanceof ImportSourceError),
              `a document with entities refused: ${(outcome as Error).message}`,
            );
            assertImported(ns, good);
          }
        }),
      ),
      bounded(150),
    );
  });

  it('--from mnemo: any header is read, or the file refused by ImportSourceError', async () => {
    const header = fc.oneof(
      hostileText,
      hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
      written(
        objectish({
          format: fc.oneof(fc.constant('mnemo-export'), hostileText, hostileJson),
          version: fc.oneof(fc.constantFrom(1, 0, 2, '1', null), hostileNumber, hostileJson),
          namespace: hostileJson,
          exported_at: hostileJson,
        }),
      ),
      // Numbers JSON.stringify never writes, but a file may hold.
      fc
        .constantFrom('1e999', '-1e999', '-0', '1.0', '0.9999999999999999999', '1e-400', '"1"')
        .map((v) => `{"format":"mnemo-export","version":${v}}`),
      fc.constantFrom(
        '',
        '\n',
        '{"format":"mnemo-export"',
        '[{"format":"mnemo-export"}]',
        '{"format":"mnemo-export","version":{"toString":""}}',
        '{"format":"mnemo-export","version":{"toString":1,"valueOf":{}}}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        header,
        timeBoxed(3, async (first) => {
          const { outcome, good, ns } = await inFolder(mnemoSource, (dir, ns) => {
            const content = `${ns} good memory`;
            const line = JSON.stringify({ memory: newMemoryRecord(`${ns}-good`, content, T0) });
            const file = path.join(dir, 'export.jsonl');
            fs.writeFileSync(file, `${first}\n${line}\n`);
            return { file, good: [content] };
          });
          if (!(outcome instanceof ImportSourceError)) assertImported(ns, good);
        }),
      ),
      bounded(150),
    );
  });
});
