// What moves data in and out of mnemo (mnemo import / mnemo export): a source reads another
// store's format into import items; the import writes them (idempotently) into a namespace.
import type { MemoryStatus, RelationType } from '../storage/records.js';

/** The formats `mnemo import --from` reads. */
export const IMPORT_FORMATS = ['server-memory', 'markdown', 'cortexgraph', 'mnemo'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The formats `mnemo export --format` writes. */
export const EXPORT_FORMATS = ['mnemo', 'markdown', 'server-memory'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * One memory to import. `key` says where it came from, stable across runs of the same source
 * (e.g. `server-memory:<entity name>:<observation index>`, `markdown:<relative path>`): the
 * import keeps it in `meta.extra.imported_from` ({format, key}) and skips an item whose key is
 * already there, so running an import twice adds nothing.
 */
export interface ImportItem {
  kind: 'memory';
  key: string;
  /** Where in the source it is (a file and line), when the source can say: a refusal names it. */
  where?: string;
  content: string;
  tags?: string[];
  entities?: string[];
  /** Free-form metadata kept in meta.extra (beside imported_from). */
  extra?: Record<string, unknown>;
  source?: string | null;
  context?: string | null;
  /** Epoch seconds; the import's clock when not given. */
  created_at?: number;
  last_used?: number;
  use_count?: number;
  strength?: number;
  status?: MemoryStatus;
  promoted_to?: string | null;
  promoted_at?: number | null;
  /**
   * A whole stored record to keep as it is (cortexgraph and mnemo sources: every field it holds,
   * those mnemo does not use included); the fields above are then ignored, but its id is kept.
   */
  record?: Record<string, unknown>;
}

/** A relation between two imported memories, named by their items' keys. */
export interface ImportRelation {
  kind: 'relation';
  /** Where in the source it is (a file and line), when the source can say: a refusal names it. */
  where?: string;
  fromKey: string;
  toKey: string;
  relation_type: RelationType;
  strength?: number;
  metadata?: Record<string, unknown>;
  /** A whole stored relation to keep as it is (mnemo and cortexgraph sources). */
  record?: Record<string, unknown>;
}

/** A forgotten copy (a mnemo export's), kept so that restore_memory can bring it back. */
export interface ImportForgotten {
  kind: 'forgotten';
  /** Where in the source it is (a file and line), when the source can say: a refusal names it. */
  where?: string;
  record: Record<string, unknown>;
}

/** Something the source could not turn into an item: the summary lists it with its reason. */
export interface ImportRefusal {
  kind: 'refused';
  /** Where: a file and line, a note's path. */
  where: string;
  why: string;
}

export type ImportEntry = ImportItem | ImportRelation | ImportForgotten | ImportRefusal;

/**
 * A source: reads `path` as its format says, streaming (constant memory for a large file),
 * yielding entries in order. A relation comes after both of its memories. Throws an ImportError
 * (a UserError naming the file and the fix) when the path cannot be read at all or is plainly
 * not that format.
 */
export interface ImportSource {
  format: ImportFormat;
  /** `report`, when given, is told how many bytes of the source have been read, of how many. */
  entries(path: string, report?: (done: number, total: number) => void): AsyncIterable<ImportEntry>;
}

/** How an import went: what the CLI prints, and --json. */
export interface ImportSummary {
  format: ImportFormat;
  source: string;
  namespace: string;
  dry_run: boolean;
  /** Entries the source gave: memories, relations, forgotten copies, refusals. */
  read: number;
  /** Memories written (with --dry-run: that would be). */
  imported: number;
  relations: number;
  forgotten: number;
  /** Memories, relations and forgotten copies already there (an earlier run of this import). */
  skipped_existing: number;
  refused: { where: string; why: string }[];
}
