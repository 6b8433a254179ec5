// A long load's worker as the retriever uses it (load-words.ts): the words of each memory line it
// read ahead and, for a memory the words index can take without its record, the record's fields,
// so that the store need not parse the line at all.
import type { LogLine, LogSpan, PreparedRecord, ReadAhead } from '../storage/engine.js';
import type { LexicalIndex } from './lexical-index.js';
import { LoadWords, type LoadWordsOptions, type PreparedWords } from './load-words.js';

export class WordsAhead {
  /** The worker of the load in progress, if any. */
  private loadWords: LoadWords | undefined;

  /**
   * `takesAlone`: whether the memory `id` is indexed by its own words alone (no note speaks for
   * it, no vector needs its text): only then is its record not needed.
   */
  constructor(
    private readonly lexical: LexicalIndex,
    private readonly takesAlone: (id: string) => boolean,
    private readonly options: LoadWordsOptions = {},
  ) {}

  /** Starts a worker on `span`, in place of any before. */
  start(span: LogSpan): ReadAhead {
    this.stop();
    const loadWords = new LoadWords(span, this.lexical.vocabularyForLoad, this.options);
    this.loadWords = loadWords;
    return {
      reached: (offset) => loadWords.reached(offset),
      record: (line) => {
        if (this.loadWords !== loadWords) return undefined;
        const record = loadWords.record(line.offset, line.length);
        return record && this.takesAlone(record.id) ? record : undefined;
      },
      lengthAt: (offset) => (this.loadWords === loadWords ? loadWords.lengthAt(offset) : undefined),
      stop: () => {
        loadWords.stop();
        if (this.loadWords === loadWords) this.loadWords = undefined;
      },
    };
  }

  /** The words the worker read of the memory line at `line`, if it did (read as with no note). */
  words(line: LogLine): PreparedWords | undefined {
    return this.loadWords?.take(line.offset, line.length);
  }

  /** Indexes a memory from what the worker read of its line alone (`ReadAhead.record` gave it). */
  add(record: PreparedRecord, line: LogLine): void {
    const words = this.words(line);
    if (!words) throw new Error(`the read-ahead lost the line at byte ${line.offset}`);
    this.lexical.addPrepared(record.id, record.status, words);
  }

  stop(): void {
    this.loadWords?.stop();
    this.loadWords = undefined;
  }
}
