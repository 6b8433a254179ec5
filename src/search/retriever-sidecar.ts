// What a retriever keeps in the store's sidecar: its words index (the vocabulary and the BM25
// postings, as typed columns), the notes its promoted memories are searched by, with embeddings
// on the hash of the text each memory's vector is of, and the parts of its watchers that keep
// one (the index of fact keys), each under its own name.
import { BUCKETS_VERSION } from '../platform/key-index.js';
import type {
  KeyOf,
  ListenerPersistence,
  MemoryWatcher,
  PersistedPart,
} from '../storage/engine.js';
import { packStrings, unpackStrings } from '../storage/sidecar.js';
import { DOCUMENT_VERSION, type NoteText } from './document.js';
import { LEXICAL_SHAPE, type LexicalIndex } from './lexical-index.js';
import type { SemanticIndex } from './semantic-index.js';

/**
 * The tables' columns, named by the version of the hashes and layout they hold (a sidecar without
 * them, or of another version, has its tables built again from the keys).
 */
const ID_TABLE = `idTable${BUCKETS_VERSION}`;
const CONTENT_TABLE = `contentTable${BUCKETS_VERSION}`;

/** A table's column when it is one (of the type written): else it is built again. */
const table = (column: unknown) => (column instanceof Int32Array ? column : undefined);

/** The memories whose text hashes are taken between two turns of the event loop. */
const HASH_SLICE = 100_000;

/** The parts of a retriever its sidecar is of. */
export interface SidecarParts {
  lexical: LexicalIndex;
  /** The notes promoted memories are searched by: kept, and taken back. */
  notes: Map<string, NoteText>;
  semantic: SemanticIndex | undefined;
  /** A live memory's text, as its vector is of (undefined: not one of the retriever's). */
  textOf(id: string): string | undefined;
  /** What derives from the memories beside the indexes; those with a part keep it here. */
  watchers: readonly MemoryWatcher[];
}

/**
 * The words index, kept in the sidecar. With embeddings on it is not taken back: the vectors
 * index needs every memory's text, so it is told of every memory as without a sidecar.
 */
export function retrieverPersistence(parts: SidecarParts): ListenerPersistence {
  const { lexical, notes, semantic, watchers } = parts;
  const kept = () => watchers.flatMap((w) => (w.persisted ? [w.persisted] : []));
  return {
    shape: { ...LEXICAL_SHAPE, document: DOCUMENT_VERSION },
    revision: () => lexical.revision,
    // The words index's columns of one number a document (bm25.ts restore keeps them as read).
    grows: (name: string) => name === 'lengths' || name === 'classes' || /^value\d+$/.test(name),
    learnt: () => kept().reduce((sum, p) => sum + p.learnt(), lexical.learnt),
    save: function* (keyOf: KeyOf) {
      const state = yield* lexical.stateInSteps(keyOf);
      // In the step the state was finished in: the vocabulary is the tokenizer's own list.
      const vocabulary = packStrings(state.vocabulary);
      const { bm25 } = state;
      const textHashes = yield* textHashColumns(lexical, semantic, bm25.keys);
      // The watchers' parts in the last step: of the same point of the log as the rest.
      const watched: PersistedPart = { columns: {}, meta: {} };
      for (const p of kept()) {
        const part = p.save(keyOf);
        if (!part) continue;
        for (const [name, column] of Object.entries(part.columns)) {
          watched.columns[`${p.name}.${name}`] = column;
        }
        watched.meta[p.name] = part.meta;
      }
      return {
        columns: {
          vocabulary: vocabulary.bytes,
          vocabularyEnds: vocabulary.ends,
          keys: bm25.keys,
          lengths: bm25.lengths,
          classes: bm25.classes,
          starts: bm25.starts,
          ordinals: bm25.ordinals,
          tfs: bm25.tfs,
          df: bm25.df,
          // The tables of id and content to ordinal, as they are: not hashed again at a start.
          ...(bm25.idTable ? { [ID_TABLE]: bm25.idTable } : {}),
          ...(state.contentTable ? { [CONTENT_TABLE]: state.contentTable } : {}),
          ...Object.fromEntries(bm25.values.map((column, c) => [`value${c}`, column])),
          ...textHashes,
          ...watched.columns,
        },
        meta: {
          notes: [...notes],
          textHashes: semantic?.requested === true,
          watchers: watched.meta,
        },
      };
    },
    restore: (part: PersistedPart, idOf: (key: number) => string) => {
      // With embeddings on, each memory's text hash must be there (the vectors are of it).
      if (semantic?.requested && part.meta.textHashes !== true) return false;
      const c = part.columns;
      // A column missing throws: the store then starts over from the log.
      const column = <T>(name: string): T => {
        const found = c[name];
        if (!found) throw new Error(`the sidecar has no column ${name}`);
        return found as T;
      };
      lexical.restore(
        {
          vocabulary: unpackStrings(column('vocabulary'), column('vocabularyEnds')),
          bm25: {
            keys: column('keys'),
            lengths: column('lengths'),
            classes: column('classes'),
            starts: column('starts'),
            ordinals: column('ordinals'),
            tfs: column('tfs'),
            df: column('df'),
            values: Array.from({ length: LEXICAL_SHAPE.values }, (_, c) =>
              column<Float64Array>(`value${c}`),
            ),
            idTable: table(c[ID_TABLE]),
          },
          contentTable: table(c[CONTENT_TABLE]),
        },
        idOf,
      );
      notes.clear();
      for (const [id, note] of part.meta.notes as [string, NoteText][]) notes.set(id, note);
      const watched = (part.meta.watchers ?? {}) as Record<string, PersistedPart['meta']>;
      for (const p of kept()) {
        const meta = watched[p.name];
        if (!meta) continue;
        const prefix = `${p.name}.`;
        const columns: PersistedPart['columns'] = {};
        for (const [name, column] of Object.entries(c)) {
          if (name.startsWith(prefix)) columns[name.slice(prefix.length)] = column;
        }
        // A part not taken back is worked out again: the rest of the sidecar still holds.
        p.restore({ columns, meta }, idOf);
      }
      if (semantic?.requested) {
        const keys = column<Int32Array>('keys');
        const hashes = unpackStrings(column('textHashes'), column('textHashEnds'));
        keys.forEach((key, ordinal) => {
          if (key === -1) return;
          const id = idOf(key);
          const hash = hashes[ordinal];
          if (hash) semantic.restoreWanted(id, hash);
          else {
            const text = parts.textOf(id);
            if (text !== undefined) semantic.upsert(id, text);
          }
        });
      }
      return true;
    },
  };
}

/**
 * With embeddings on: by ordinal, the hash of the text each memory's vector is of, a slice of
 * the memories a step (as `save`'s other steps).
 */
function* textHashColumns(
  lexical: LexicalIndex,
  semantic: SemanticIndex | undefined,
  keys: Int32Array,
): Generator<void, PersistedPart['columns']> {
  if (!semantic?.requested) return {};
  const hashes = new Array<string>(keys.length);
  for (let from = 0; from < keys.length; from += HASH_SLICE) {
    const to = Math.min(keys.length, from + HASH_SLICE);
    for (let ordinal = from; ordinal < to; ordinal++) {
      hashes[ordinal] = keys[ordinal] === -1 ? '' : (semantic.hashOf(lexical.idAt(ordinal)) ?? '');
    }
    yield;
  }
  const packed = packStrings(hashes);
  return { textHashes: packed.bytes, textHashEnds: packed.ends };
}
