// `mnemo import FILE --from server-memory`: the knowledge graph of
// @modelcontextprotocol/server-memory.
//
// Its file (memory.jsonl, or MEMORY_FILE_PATH) holds one JSON object a line:
// `{"type":"entity","name","entityType","observations":[...]}` and
// `{"type":"relation","from","to","relationType"}`. Older versions wrote memory.json, the same
// lines or one document `{"entities":[...],"relations":[...]}` (read_graph's shape); both are
// read. Lines are streamed: what is kept across the file is each entity's name and the key of the
// memory that stands for it, never an observation's text.
//
// Each observation becomes a memory: the observation as its content, the entity's name as its
// entity, the entityType as a tag. A relation between entities becomes a `related` relation
// between the first memories of each (the entity's first observation), its relationType kept in
// metadata. An entity without observations becomes one memory, "name (entityType)", so its
// relations have somewhere to go; the export writes it back as an entity with no observation.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ImportEntry, ImportItem, ImportRelation, ImportSource } from '../types.js';
import { lines, ReadProgress, type ReadReport } from './lines.js';
import { ImportSourceError } from './source-error.js';

export const serverMemorySource: ImportSource = {
  format: 'server-memory',
  entries: serverMemoryEntries,
};

/** What an imported memory keeps in meta.extra.server_memory, and the export reads back. */
export interface ServerMemoryOrigin {
  entity: string;
  entityType: string;
  /** Set on the memory of an entity that had no observation. */
  placeholder?: true;
}

/** Largest file read as one JSON document (the older shape cannot be streamed line by line). */
const MAX_DOCUMENT_BYTES = 512 * 1024 * 1024;

interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

interface Relation {
  from: string;
  to: string;
  relationType: string;
}

/** The key of an observation: the entity and a hash of the text, stable across runs and edits. */
export function observationKey(entity: string, observation: string): string {
  const hash = createHash('sha256').update(observation).digest('hex').slice(0, 24);
  return `server-memory:${entity}:${hash}`;
}

/** The key of the memory that stands for an entity without observations. */
export function entityKey(entity: string): string {
  return `server-memory:${entity}`;
}

/** A tag made of an entityType: server-memory allows any text, tags `A-Za-z0-9_/-` only. */
export function entityTypeTag(entityType: string): string | undefined {
  const tag = entityType
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^A-Za-z0-9_/-]/g, '')
    .slice(0, 64);
  return tag === '' ? undefined : tag;
}

async function* serverMemoryEntries(
  file: string,
  report?: ReadReport,
): AsyncGenerator<ImportEntry> {
  await checkFile(file);
  const progress = ReadProgress.of([file], report);
  // name -> the key of the memory that stands for it
  const heads = new Map<string, string>();
  const pending: { relation: Relation; where: string }[] = [];

  const onEntity = function* (entity: Entity, where: string): Generator<ImportEntry> {
    if (heads.has(entity.name)) {
      yield {
        kind: 'refused',
        where,
        why: `entity "${entity.name}" appears a second time: its first line is kept`,
      };
      return;
    }
    const items = entityItems(entity);
    const head = items[0];
    if (head) heads.set(entity.name, head.key);
    for (const item of items) yield { ...item, where };
  };

  const onRelation = function* (relation: Relation, where: string): Generator<ImportEntry> {
    const made = relationBetween(relation, heads);
    if (made) yield { ...made, where };
    else pending.push({ relation, where });
  };

  if (await isDocument(file)) {
    const graph = await readDocument(file);
    for (const [i, entity] of graph.entities.entries()) {
      const where = `${file}: entities[${i}]`;
      const checked = toEntity(entity);
      if (typeof checked === 'string') yield { kind: 'refused', where, why: checked };
      else yield* onEntity(checked, where);
    }
    for (const [i, relation] of graph.relations.entries()) {
      const where = `${file}: relations[${i}]`;
      const checked = toRelation(relation);
      if (typeof checked === 'string') yield { kind: 'refused', where, why: checked };
      else yield* onRelation(checked, where);
    }
  } else {
    for await (const { number, line } of lines(file, progress)) {
      const where = `${file}:${number}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        yield { kind: 'refused', where, why: 'not a JSON line (cut short, or edited by hand)' };
        continue;
      }
      const type = (value as { type?: unknown } | null)?.type;
      if (type === 'entity') {
        const checked = toEntity(value);
        if (typeof checked === 'string') yield { kind: 'refused', where, why: checked };
        else yield* onEntity(checked, where);
      } else if (type === 'relation') {
        const checked = toRelation(value);
        if (typeof checked === 'string') yield { kind: 'refused', where, why: checked };
        else yield* onRelation(checked, where);
      } else {
        yield {
          kind: 'refused',
          where,
          why: 'neither an entity nor a relation (no "type": "entity" or "relation")',
        };
      }
    }
  }

  // Relations written before their entities (server-memory itself writes entities first).
  for (const { relation, where } of pending) {
    const made = relationBetween(relation, heads);
    if (made) {
      yield { ...made, where };
      continue;
    }
    const missing = heads.has(relation.from) ? relation.to : relation.from;
    yield {
      kind: 'refused',
      where,
      why: `relation ${relation.from} -${relation.relationType}-> ${relation.to}: entity "${missing}" is not in the file`,
    };
  }
}

function entityItems(entity: Entity): ImportItem[] {
  const tag = entityTypeTag(entity.entityType);
  const base = {
    kind: 'memory' as const,
    entities: [entity.name],
    tags: tag ? [tag] : [],
  };
  const origin: ServerMemoryOrigin = { entity: entity.name, entityType: entity.entityType };
  if (entity.observations.length === 0) {
    return [
      {
        ...base,
        key: entityKey(entity.name),
        content: `${entity.name} (${entity.entityType})`,
        extra: { server_memory: { ...origin, placeholder: true } },
      },
    ];
  }
  return entity.observations.map((observation) => ({
    ...base,
    key: observationKey(entity.name, observation),
    content: observation,
    extra: { server_memory: origin },
  }));
}

function relationBetween(
  relation: Relation,
  heads: ReadonlyMap<string, string>,
): ImportRelation | undefined {
  const fromKey = heads.get(relation.from);
  const toKey = heads.get(relation.to);
  if (fromKey === undefined || toKey === undefined) return undefined;
  return {
    kind: 'relation',
    fromKey,
    toKey,
    relation_type: 'related',
    metadata: {
      relationType: relation.relationType,
      server_memory: { from: relation.from, to: relation.to },
    },
  };
}

function toEntity(value: unknown): Entity | string {
  const v = value as Partial<Record<keyof Entity, unknown>> | null;
  if (typeof v !== 'object' || v === null) return 'not a JSON object';
  if (typeof v.name !== 'string' || v.name.trim() === '') return 'an entity without a "name"';
  const observations = Array.isArray(v.observations) ? v.observations : [];
  return {
    name: v.name,
    entityType: typeof v.entityType === 'string' ? v.entityType : '',
    observations: observations.filter((o): o is string => typeof o === 'string' && o.trim() !== ''),
  };
}

function toRelation(value: unknown): Relation | string {
  const v = value as Partial<Record<keyof Relation, unknown>> | null;
  if (typeof v !== 'object' || v === null) return 'not a JSON object';
  if (typeof v.from !== 'string' || typeof v.to !== 'string') {
    return 'a relation without "from" and "to" entity names';
  }
  return {
    from: v.from,
    to: v.to,
    relationType: typeof v.relationType === 'string' ? v.relationType : 'related',
  };
}

async function checkFile(file: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch (error) {
    throw new ImportSourceError(
      `--from server-memory: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}): give server-memory's file (its MEMORY_FILE_PATH, by default memory.jsonl beside its dist/index.js)`,
    );
  }
  if (stat.isDirectory()) {
    throw new ImportSourceError(
      `--from server-memory: ${file} is a folder: give server-memory's file itself (memory.jsonl or memory.json)`,
    );
  }
  let first: string | undefined;
  try {
    first = await firstLine(file);
  } catch (error) {
    throw new ImportSourceError(
      `--from server-memory: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}): make it readable, or copy it somewhere you can read`,
    );
  }
  if (first === undefined) return;
  if (first.trimStart().startsWith('{') || first.trimStart().startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(first);
    } catch {
      return; // a document written over several lines: read whole, checked then
    }
    const type = (value as { type?: unknown } | null)?.type;
    if (type === 'entity' || type === 'relation') return;
    if (value !== null && typeof value === 'object' && 'entities' in value) return;
  }
  throw new ImportSourceError(
    `--from server-memory: ${file} is not a server-memory file (its first line is not {"type":"entity",...} nor {"type":"relation",...}): give server-memory's memory.jsonl or memory.json${looksLike(first)}`,
  );
}

/** A hint at what the file is when it is not server-memory's. */
function looksLike(line: string): string {
  try {
    const value = JSON.parse(line) as Record<string, unknown> | null;
    if (value && typeof value === 'object' && 'content' in value && 'id' in value) {
      return ' (it looks like a mnemo or cortexgraph memories.jsonl: use --from cortexgraph with its folder, or --from mnemo for a mnemo export)';
    }
  } catch {
    // not JSON
  }
  return '';
}

/**
 * True when the file is one JSON document (`{"entities": [...]}`), not a line per object. Its
 * first line is no entity nor relation, whatever other "type" it has: checkFile took it as a
 * document, and read as lines its entities were refused as one line.
 */
async function isDocument(file: string): Promise<boolean> {
  const first = await firstLine(file);
  if (first === undefined) return false;
  try {
    const value = JSON.parse(first) as { type?: unknown } | null;
    return (
      value !== null &&
      typeof value === 'object' &&
      value.type !== 'entity' &&
      value.type !== 'relation'
    );
  } catch {
    return true;
  }
}

async function readDocument(file: string): Promise<{ entities: unknown[]; relations: unknown[] }> {
  const { size } = await fs.promises.stat(file);
  if (size > MAX_DOCUMENT_BYTES) {
    throw new ImportSourceError(
      `--from server-memory: ${file} is one JSON document of ${Math.round(size / 2 ** 20)} MB, over the ${MAX_DOCUMENT_BYTES / 2 ** 20} MB read at once: start server-memory on it once (it rewrites it as memory.jsonl, a line per entity), then import that`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(await fs.promises.readFile(file, 'utf8'));
  } catch (error) {
    throw new ImportSourceError(
      `--from server-memory: ${file} is neither a line per entity nor one JSON document (${(error as Error).message}): give server-memory's memory.jsonl or memory.json`,
    );
  }
  const graph = value as { entities?: unknown; relations?: unknown } | null;
  if (!graph || typeof graph !== 'object' || !Array.isArray(graph.entities)) {
    throw new ImportSourceError(
      `--from server-memory: ${file} is JSON without an "entities" list: give server-memory's memory.jsonl or memory.json`,
    );
  }
  return {
    entities: graph.entities,
    relations: Array.isArray(graph.relations) ? graph.relations : [],
  };
}

async function firstLine(file: string): Promise<string | undefined> {
  for await (const { line } of lines(file)) return line;
  return undefined;
}
