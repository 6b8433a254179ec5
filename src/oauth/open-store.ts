import type { Config } from '../config/index.js';
import { FileOAuthStore } from './file-store.js';
import { PgOAuthStore } from './pg-store.js';
import type { OAuthStore } from './store.js';

/**
 * The OAuth store of a config: PostgreSQL's table with MNEMO_DATABASE_URL (its schema migrated by
 * the memory's store), else oauth.json in the data dir.
 */
export function openOAuthStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  clock: () => number,
): OAuthStore {
  return config.databaseUrl
    ? new PgOAuthStore(config.databaseUrl, clock)
    : new FileOAuthStore(config.dataDir, clock);
}
