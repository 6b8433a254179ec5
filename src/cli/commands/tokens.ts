import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/index.js';
import type { GrantSummary, Grants } from '../../oauth/grants.js';
import { type CommandContext, UsageError } from '../command.js';
import { json, table, utcMinute } from '../format.js';
import { clockFor } from '../runtime.js';

/** How much of a grant's id the table shows: enough for revoke (MIN_ID_PREFIX is 8). */
const SHOWN_ID = 12;

/**
 * `mnemo tokens list` and `mnemo tokens revoke ID`: the grants people gave OAuth clients
 * (claude.ai, ChatGPT), from the OAuth store of the data dir or MNEMO_DATABASE_URL, without
 * a running server. A list shows no secret: the stored keys are hashes.
 */
export async function runTokens(context: CommandContext): Promise<number> {
  const { args, config } = context;
  const [sub, id, ...rest] = args;
  if (sub === 'list' && id === undefined)
    return withGrants(config, (grants) => list(grants, context));
  if (sub === 'revoke' && id !== undefined && rest.length === 0) {
    return withGrants(config, (grants) => revoke(grants, id, context));
  }
  throw new UsageError(
    'tokens takes a subcommand: mnemo tokens list, or mnemo tokens revoke ID (from the list)',
  );
}

async function list(grants: Grants | undefined, { flags, out }: CommandContext): Promise<number> {
  const all = grants ? await grants.list() : [];
  if (flags.json) {
    out(json({ grants: all }));
    return 0;
  }
  if (all.length === 0) {
    out('No OAuth grants: no client was given access (mnemo serve --oauth turns OAuth on).');
    return 0;
  }
  const when = (t: number | null) => (t === null ? '-' : utcMinute(t));
  out(
    table(
      ['ID', 'CLIENT', 'NAMESPACES', 'CREATED', 'EXPIRES', 'LAST USED'],
      all.map((g: GrantSummary) => [
        g.id.slice(0, SHOWN_ID),
        g.client.name ?? g.client.id,
        g.namespaces.join(','),
        when(g.created),
        when(g.expires),
        when(g.last_used),
      ]),
    ),
  );
  return 0;
}

async function revoke(
  grants: Grants | undefined,
  id: string,
  { flags, out }: CommandContext,
): Promise<number> {
  if (!grants || !(await grants.revoke(id))) {
    throw new UsageError(
      `no grant has the id "${id}" (or more than one starts with it): see mnemo tokens list`,
    );
  }
  out(flags.json ? json({ revoked: id }) : `Revoked ${id}: its tokens no longer work.`);
  return 0;
}

/**
 * Runs `fn` over the grants of the config's OAuth store, closed after; undefined for a data dir
 * that has no OAuth file (OAuth never ran there), so listing makes no file and no folder.
 */
async function withGrants<T>(
  config: Config,
  fn: (grants: Grants | undefined) => Promise<T>,
): Promise<T> {
  const [{ Grants }, { openOAuthStore }, { OAUTH_FILE }] = await Promise.all([
    import('../../oauth/grants.js'),
    import('../../oauth/open-store.js'),
    import('../../oauth/file-store.js'),
  ]);
  if (config.databaseUrl === undefined && !fs.existsSync(path.join(config.dataDir, OAUTH_FILE))) {
    return fn(undefined);
  }
  const store = openOAuthStore(config, clockFor(config));
  try {
    return await fn(new Grants(store, () => undefined));
  } finally {
    await store.close();
  }
}
