// When each part of an opened memory can be used: one question with one answer, for the use
// cases, the apps (/health, the start log) and the CLI.
import type { SemanticIndex } from '../search/semantic-index.js';
import type { StorageEngine } from '../storage/engine.js';
import type { VaultIndex } from '../vault/note-index.js';

/**
 * store: the memories are loaded; vault: the vault's notes are read and the memories reconciled
 * with them; embeddings: the model is loaded, or known not to be there.
 */
export type ReadyPart = 'store' | 'vault' | 'embeddings';

export interface ReadinessState {
  store: 'loading' | 'ready' | 'failed';
  vault: 'off' | 'indexing' | 'ready';
  embeddings: 'loading' | 'ready' | 'off';
}

export interface Readiness {
  /**
   * Resolves once `part` is ready. For the store that is one round: while another process holds
   * the data dir, the calls waiting are rejected with its busy error after a while, and a later
   * call waits again; `patient` waits however long instead, rejecting only when the store cannot
   * be read. The vault and the embeddings never reject: without them search is by words.
   */
  wait(part: ReadyPart, options?: { patient?: boolean }): Promise<void>;
  state(): ReadinessState;
}

export interface ReadinessParts {
  engine: Pick<StorageEngine, 'ready' | 'loaded'>;
  /**
   * Settles when the vault's notes are first read and the memories reconciled with them;
   * undefined when the vault is not watched (a one-shot command).
   */
  vault: Promise<void> | undefined;
  /** The index of the vault's notes: a vault made later is read then, and waited for too. */
  notes: Pick<VaultIndex, 'ready'>;
  semantic: Pick<SemanticIndex, 'ready' | 'status'>;
}

export function createReadiness(parts: ReadinessParts): Readiness {
  let store: ReadinessState['store'] = 'loading';
  parts.engine.loaded.then(
    () => {
      store = 'ready';
    },
    () => {
      store = 'failed';
    },
  );
  let vault: ReadinessState['vault'] = parts.vault ? 'indexing' : 'off';
  void parts.vault?.then(() => {
    vault = 'ready';
  });
  return {
    async wait(part, options = {}) {
      if (part === 'store') {
        await (options.patient ? parts.engine.loaded : parts.engine.ready);
      } else if (part === 'vault') {
        await parts.vault;
        await parts.notes.ready;
      } else {
        await parts.semantic.ready;
      }
    },
    state: () => ({ store, vault, embeddings: parts.semantic.status().state }),
  };
}
