// Records to rows and back: each field of a record in its column, meta and the fields mnemo does
// not use as jsonb, so that a record read back is the record written (storedShape alike).
import {
  MEMORY_FIELDS,
  type MemoryRecord,
  RELATION_FIELDS,
  type RelationRecord,
  storedShape,
  toMemoryRecord,
  toRelationRecord,
} from '../records.js';

/** The columns of mnemo_memories: the record's fields, its namespace, and the fields it does not use. */
export const MEMORY_COLUMNS = ['namespace', ...MEMORY_FIELDS, 'other'] as const;
export const RELATION_COLUMNS = ['namespace', ...RELATION_FIELDS, 'other'] as const;

/** The SQL type of each column of mnemo_memories (a test holds them to the database's). */
export const MEMORY_TYPES: Readonly<Record<(typeof MEMORY_COLUMNS)[number], string>> = {
  namespace: 'text',
  id: 'text',
  content: 'text',
  meta: 'jsonb',
  entities: 'jsonb',
  created_at: 'bigint',
  last_used: 'bigint',
  use_count: 'integer',
  strength: 'double precision',
  status: 'text',
  promoted_at: 'bigint',
  promoted_to: 'text',
  review_priority: 'double precision',
  review_count: 'integer',
  last_review_at: 'bigint',
  cross_domain_count: 'integer',
  other: 'jsonb',
};

type Row = Record<string, unknown>;

/** The fields of a stored shape outside `columns`, or null when there are none. */
function others(shape: Row, columns: readonly string[]): Row | null {
  let out: Row | null = null;
  for (const [key, value] of Object.entries(shape)) {
    if (columns.includes(key)) continue;
    out ??= {};
    out[key] = value;
  }
  return out;
}

/** JSON of the fields mnemo does not use, or SQL NULL when there are none. */
const nullable = (other: Row | null) => (other === null ? null : JSON.stringify(other));

/** The values of a record's stored `shape` in `columns` order; `json` columns are jsonb. */
function valuesOf(
  shape: Row,
  ns: string,
  columns: readonly string[],
  json: ReadonlySet<string>,
): unknown[] {
  return columns.map((column) => {
    if (column === 'namespace') return ns;
    if (column === 'other') return nullable(others(shape, columns));
    return json.has(column) ? JSON.stringify(shape[column]) : shape[column];
  });
}

const MEMORY_JSON = new Set(['meta', 'entities']);
const RELATION_JSON = new Set(['metadata']);

/** The values of memory `record` of namespace `ns`, in MEMORY_COLUMNS order. */
export function memoryValues(record: MemoryRecord, ns: string): unknown[] {
  return valuesOf(storedShape(record) as Row, ns, MEMORY_COLUMNS, MEMORY_JSON);
}

/** The values of relation `record` of namespace `ns`, in RELATION_COLUMNS order. */
export function relationValues(record: RelationRecord, ns: string): unknown[] {
  return valuesOf(storedShape(record) as Row, ns, RELATION_COLUMNS, RELATION_JSON);
}

/** A memory row (SELECT of MEMORY_COLUMNS) as the record it holds. */
export function memoryFromRow(row: Row): MemoryRecord {
  const { namespace: _ns, other, ...fields } = row;
  return toMemoryRecord({ ...(other as Row | null), ...fields });
}

export function relationFromRow(row: Row): RelationRecord {
  const { namespace: _ns, other, ...fields } = row;
  return toRelationRecord({ ...(other as Row | null), ...fields });
}

/**
 * `INSERT ... ON CONFLICT (id) DO UPDATE` of `count` rows of `columns` into `table`, with
 * placeholders: the values go flat, row after row.
 */
export function upsertSql(
  table: string,
  columns: readonly string[],
  count: number,
  /** Updates only a row of the same namespace: one of another is left as it is (rowCount says). */
  sameNamespace = false,
): string {
  const rows: string[] = [];
  for (let r = 0; r < count; r++) {
    const base = r * columns.length;
    rows.push(`(${columns.map((_, c) => `$${base + c + 1}`).join(', ')})`);
  }
  const updates = columns
    .filter((c) => c !== 'id')
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  const guard = sameNamespace ? ` WHERE ${table}.namespace = EXCLUDED.namespace` : '';
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rows.join(', ')} ON CONFLICT (id) DO UPDATE SET ${updates}${guard}`;
}
