import { mnemoSource } from '../mnemo-format.js';
import type { ImportFormat, ImportSource } from '../types.js';
import { cortexgraphSource } from './cortexgraph.js';
import { markdownSource } from './markdown.js';
import { serverMemorySource } from './server-memory.js';

/** The source that reads each format of `mnemo import --from`. */
export const IMPORT_SOURCES: Record<ImportFormat, ImportSource> = {
  'server-memory': serverMemorySource,
  markdown: markdownSource,
  cortexgraph: cortexgraphSource,
  mnemo: mnemoSource,
};
