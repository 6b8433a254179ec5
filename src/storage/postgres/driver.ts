// The pg driver, loaded on first use: a mnemo on a data dir never pays for loading it.
import { createRequire } from 'node:module';
import type pg from 'pg';

const require = createRequire(import.meta.url);
let loaded: typeof pg | undefined;

export function pgDriver(): typeof pg {
  loaded ??= require('pg') as typeof pg;
  return loaded;
}
