// The client's log (MCP logging): notifications/message for what changes the memory in bulk, gc,
// promotion and consolidation, and for the vault's notes as they are written or removed. Each
// message is counts, ids and vault paths: never a memory's content, a note's text or a setting.
import {
  type LoggingLevel,
  type McpServer,
  type ServerContext,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { ConsolidateMemoriesOutput } from '../contract/consolidate-memories.js';
import type { GcOutput } from '../contract/gc.js';
import type { PromoteMemoryOutput } from '../contract/promote-memory.js';
import type { Memory } from '../memory/index.js';

const LOGGER = 'mnemo';
/** Ids a message lists at most; the count says how many there were. */
const IDS = 20;

interface LogEvent {
  level: LoggingLevel;
  data: Record<string, unknown>;
}

/**
 * Tells the client of the call what the call did, as part of its answer: the SDK sends it to a
 * 2026-07-28 request only when the request asked for a level (`_meta` logLevel), and to an
 * initialize-based client at the level it set with logging/setLevel (every level before one).
 */
export async function logToCaller(extra: ServerContext, event: LogEvent): Promise<void> {
  // Sent before the answer, which must not overtake it; a client gone is not the call's failure.
  await extra.mcpReq.log(event.level, event.data, LOGGER).catch(() => {});
}

export const gcEvent = (out: GcOutput): LogEvent => ({
  level: out.dry_run ? 'debug' : 'notice',
  data: {
    event: 'gc',
    dry_run: out.dry_run,
    removed: out.removed_count,
    archived: out.archived_count,
    affected: out.total_affected,
    memory_ids: out.memory_ids.slice(0, IDS),
  },
});

export const promotionEvent = (out: PromoteMemoryOutput): LogEvent => ({
  level: out.failed.length > 0 ? 'warning' : out.dry_run ? 'debug' : 'notice',
  data: {
    event: 'promotion',
    dry_run: out.dry_run,
    candidates: out.candidates_found,
    promoted: out.promoted.slice(0, IDS),
    failed: out.failed.length,
  },
});

export const consolidationEvent = (out: ConsolidateMemoriesOutput): LogEvent => ({
  level: out.mode === 'preview' ? 'debug' : 'notice',
  data: {
    event: 'consolidation',
    mode: out.mode,
    clusters: out.consolidations.length,
    memory_ids: out.consolidations.flatMap((c) => (c.memory_id ? [c.memory_id] : [])),
    archived: out.consolidations.reduce((n, c) => n + (c.archived_ids?.length ?? 0), 0),
  },
});

/**
 * The vault's events, sent as they come until the connection closes, to a client that opened
 * the connection with initialize: the 2026-07-28 revision has no message a server sends on its
 * own. The level the client set with logging/setLevel filters them (the SDK keeps it).
 */
export function logVaultToClient(server: McpServer, memory: Memory): void {
  const stopNotes = memory.overview.watchNotes((event) => {
    const version = server.server.getNegotiatedProtocolVersion();
    if (!server.isConnected() || version === undefined) return;
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return;
    const data = {
      event: 'vault',
      change: event.kind === 'upsert' ? (event.previous ? 'changed' : 'added') : 'removed',
      path: event.kind === 'upsert' ? event.note.path : event.previous.path,
    };
    void server.server.sendLoggingMessage({ level: 'info', logger: LOGGER, data }).catch(() => {});
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    closed?.();
    stopNotes();
  };
}
