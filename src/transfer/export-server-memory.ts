// `mnemo export --format server-memory`: a memory.jsonl that @modelcontextprotocol/server-memory
// opens (MEMORY_FILE_PATH), written as it writes its own: entities, then relations, a line each.
//
// Memories are grouped into entities: one imported from server-memory goes back to its entity
// (meta.extra.server_memory); any other to its first entity, else to an entity of its own named
// by its id, with its first tag as entityType ("memory" without one). Each memory's content is one
// observation. A relation between two memories becomes one between their entities, named by the
// relationType the import kept, else by mnemo's relation_type; the same one is written once.

import type { StorageEngine } from '../storage/engine.js';
import type { MemoryRecord } from '../storage/records.js';
import type { ServerMemoryOrigin } from './sources/server-memory.js';

interface Entity {
  entityType: string;
  observations: string[];
}

export async function* serverMemoryExportLines(engine: StorageEngine): AsyncGenerator<string> {
  await engine.ready;
  const entities = new Map<string, Entity>();
  const entityOf = new Map<string, string>();
  for (const id of [...engine.memories.keys()]) {
    const record = engine.memories.get(id);
    if (!record) continue;
    const { name, entityType, placeholder } = placeOf(record);
    let entity = entities.get(name);
    if (!entity) {
      entity = { entityType, observations: [] };
      entities.set(name, entity);
    }
    entityOf.set(id, name);
    if (!placeholder && !entity.observations.includes(record.content)) {
      entity.observations.push(record.content);
    }
  }
  for (const [name, entity] of entities) {
    yield JSON.stringify({
      type: 'entity',
      name,
      entityType: entity.entityType,
      observations: entity.observations,
    });
  }
  const written = new Set<string>();
  for (const relation of [...engine.relations.values()]) {
    const from = entityOf.get(relation.from_memory_id);
    const to = entityOf.get(relation.to_memory_id);
    if (from === undefined || to === undefined) continue;
    const kept = relation.metadata.relationType;
    const relationType = typeof kept === 'string' && kept !== '' ? kept : relation.relation_type;
    const line = JSON.stringify({ type: 'relation', from, to, relationType });
    if (written.has(line)) continue;
    written.add(line);
    yield line;
  }
}

function placeOf(record: MemoryRecord): { name: string; entityType: string; placeholder: boolean } {
  const origin = record.meta.extra.server_memory as Partial<ServerMemoryOrigin> | undefined;
  if (origin && typeof origin.entity === 'string' && origin.entity !== '') {
    return {
      name: origin.entity,
      entityType: typeof origin.entityType === 'string' ? origin.entityType : 'memory',
      placeholder: origin.placeholder === true,
    };
  }
  return {
    name: record.entities[0] ?? `memory ${record.id}`,
    entityType: record.meta.tags[0] ?? 'memory',
    placeholder: false,
  };
}
