// Which way the dependencies between src's folders point: a table of folder -> the folders it
// may import, checked against every import in src (each resolved against its own file, so
// storage/postgres/engine.ts importing '../engine.js' is storage -> storage), and the same table
// in docs/architecture.md, which also names every folder; inside storage, that each engine keeps
// to its folder and only open.ts of the core names one.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importedSpecifiers, parseSource } from './source-tree.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

/**
 * Folder (or top-level file, without .ts) -> what it may import of mnemo's. Listed bottom-up:
 * an arrow points to a row above its own. `app` and `cli` wire everything and may import any.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  platform: [],
  decay: [],
  version: ['platform'],
  logger: [],
  storage: ['platform'],
  search: ['storage', 'platform'],
  vault: ['search', 'storage', 'platform'],
  contract: ['search', 'storage', 'decay', 'platform'],
  memory: ['contract', 'search', 'vault', 'storage', 'decay', 'platform'],
  transfer: ['contract', 'vault', 'storage', 'platform'],
  logging: ['memory', 'contract'],
  resources: ['memory', 'contract', 'storage', 'platform'],
  prompts: ['resources', 'memory'],
  tools: ['logging', 'memory', 'contract', 'platform'],
  server: ['tools', 'prompts', 'resources', 'logging', 'version'],
  config: ['vault', 'search', 'storage', 'decay', 'platform'],
  transport: ['storage', 'platform'],
  ui: ['transport', 'memory', 'contract', 'storage', 'decay', 'platform'],
  // storage: engine.ts (isNamespace) and postgres/database.ts (a pool).
  oauth: ['ui', 'transport', 'config', 'storage', 'platform'],
  gateway: ['transport', 'config', 'version', 'platform'],
  app: ['*'],
  cli: ['*'],
};

/** Packages a folder may import besides node's own modules; a folder not listed may import any. */
const MAY_USE_PACKAGES: Record<string, readonly string[]> = {
  contract: ['zod'],
  decay: ['simple-statistics'],
  platform: [],
};

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx|mts)$/.test(entry.name)) yield full;
  }
}

/** The folder of src a path is in, or the top-level file's name without its extension. */
function moduleOf(file: string): string {
  const [first = '', ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length === 0 ? first.replace(/\.(ts|tsx|mts|js)$/, '') : first;
}

interface Import {
  from: string;
  to: string;
  at: string;
  /** The importing file and the imported one, relative to src (local imports only). */
  fromFile?: string;
  toFile?: string;
}

/** Every import of src (static, type-only, re-export and dynamic), by the importing module. */
function importsOfSrc(): { local: Import[]; packages: Import[] } {
  const local: Import[] = [];
  const packages: Import[] = [];
  for (const file of sourceFiles(SRC)) {
    const at = path.relative(ROOT, file);
    for (const fileName of importedSpecifiers(parseSource(file))) {
      if (fileName.startsWith('.')) {
        const target = path.resolve(path.dirname(file), fileName);
        const outside = path.relative(SRC, target).startsWith('..');
        // version.ts reads the version from package.json; nothing else of src looks outside it.
        if (outside && path.relative(ROOT, target) === 'package.json') continue;
        assert.ok(!outside, `${at} imports ${fileName}, outside src`);
        local.push({
          from: moduleOf(file),
          to: moduleOf(target),
          at: `${at}: ${fileName}`,
          fromFile: path.relative(SRC, file),
          toFile: path.relative(SRC, target),
        });
      } else if (!fileName.startsWith('node:')) {
        const name = fileName.startsWith('@')
          ? fileName.split('/').slice(0, 2).join('/')
          : (fileName.split('/')[0] ?? fileName);
        packages.push({ from: moduleOf(file), to: name, at: `${at}: ${fileName}` });
      }
    }
  }
  return { local, packages };
}

const { local, packages } = importsOfSrc();
const arrows = local.filter((i) => i.from !== i.to);

describe('the layers of src', () => {
  it('lists every folder and top-level file of src in the table', () => {
    const modules = new Set([...sourceFiles(SRC)].map(moduleOf));
    assert.deepEqual([...modules].sort(), Object.keys(MAY_IMPORT).sort());
  });

  it('imports only down the table', () => {
    const wrong = arrows
      .filter((i) => {
        const allowed = MAY_IMPORT[i.from] ?? [];
        return !allowed.includes('*') && !allowed.includes(i.to);
      })
      .map((i) => `${i.from} -> ${i.to} (${i.at})`);
    assert.deepEqual(wrong, []);
  });

  it('uses every arrow it allows, so the table says what is true', () => {
    const used = new Set(arrows.map((i) => `${i.from} -> ${i.to}`));
    const unused = Object.entries(MAY_IMPORT).flatMap(([from, tos]) =>
      tos
        .filter((to) => to !== '*' && !used.has(`${from} -> ${to}`))
        .map((to) => `${from} -> ${to}`),
    );
    assert.deepEqual(unused, []);
  });

  it('points no arrow up: the table has no cycle', () => {
    const order = Object.keys(MAY_IMPORT);
    const upward = Object.entries(MAY_IMPORT).flatMap(([from, tos]) =>
      tos
        .filter((to) => to !== '*' && order.indexOf(to) >= order.indexOf(from))
        .map((to) => `${from} -> ${to}`),
    );
    assert.deepEqual(upward, []);
  });

  it('keeps the contract free of the MCP SDK, and the bottom folders of packages', () => {
    const wrong = packages
      .filter((i) => {
        const allowed = MAY_USE_PACKAGES[i.from];
        return allowed !== undefined && !allowed.includes(i.to);
      })
      .map((i) => i.at);
    assert.deepEqual(wrong, []);
  });
});

/**
 * Inside storage: the core (storage/'s own files) names no engine, open.ts (openEngine) alone
 * excepted; an engine's folder imports the core, never the other engine; migrate/ imports both.
 */
const STORAGE_MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  jsonl: ['core'],
  postgres: ['core'],
  open: ['core', 'jsonl', 'postgres'],
  migrate: ['core', 'jsonl', 'postgres'],
};
/** Outside storage, what may name an engine's folder: cli's commands, oauth's PostgreSQL pool. */
const ENGINE_FOLDERS_USED_BY = ['cli', 'oauth'];

/** The part of storage a file of src is in (core, open, or an engine's folder), else undefined. */
function storagePart(file: string): string | undefined {
  const [top, second = '', ...rest] = file.split(path.sep);
  if (top !== 'storage') return undefined;
  if (rest.length > 0) return second;
  return second.replace(/\.(ts|js)$/, '') === 'open' ? 'open' : 'core';
}

describe('the folders of storage', () => {
  it('keeps each engine to its folder, and names one in the core only in open.ts', () => {
    const wrong = local
      .filter((i) => i.from === 'storage' && i.to === 'storage')
      .filter((i) => {
        const from = storagePart(i.fromFile ?? '') ?? '';
        const to = storagePart(i.toFile ?? '') ?? '';
        return from !== to && !(STORAGE_MAY_IMPORT[from] ?? []).includes(to);
      })
      .map((i) => i.at);
    assert.deepEqual(wrong, []);
  });

  it('lets only app go through open.ts, and cli and oauth name an engine folder', () => {
    const wrong = local
      .filter((i) => i.from !== 'storage')
      .filter((i) => {
        const to = storagePart(i.toFile ?? '');
        if (to === 'open') return i.from !== 'app';
        return to !== undefined && to !== 'core' && !ENGINE_FOLDERS_USED_BY.includes(i.from);
      })
      .map((i) => i.at);
    assert.deepEqual(wrong, []);
  });
});

describe('docs/architecture.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

  it('names every folder of src', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(
      folders.filter((f) => !doc.includes(`src/${f}/`)),
      [],
    );
  });

  it('states the same table', () => {
    // Rows of the form: | `memory` | `contract`, `search`, ... |
    const rows = new Map<string, string[]>();
    for (const line of doc.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      const name = /^`([a-z-]+)`$/.exec(cells[1] ?? '')?.[1];
      if (cells.length !== 4 || name === undefined) continue;
      const tos = (cells[2] ?? '').split(',').map((c) => c.trim().replace(/^`|`$/g, ''));
      rows.set(
        name,
        tos.filter((t) => t !== '' && t !== 'nothing of mnemo'),
      );
    }
    const expected = Object.entries(MAY_IMPORT).map(([from, tos]) => [
      from,
      tos.includes('*') ? ['anything'] : [...tos].sort(),
    ]);
    assert.deepEqual(
      [...rows].map(([from, tos]) => [from, [...tos].sort()]),
      expected,
    );
  });
});
