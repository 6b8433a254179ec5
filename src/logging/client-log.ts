// The client's log (MCP logging): notifications/message for what changes the memory in bulk, gc,
// promotion and consolidation, and for the vault's notes as they are written or removed. Each
// message is counts, ids and vault paths: never a memory's content, a note's text or a setting.
import type { LoggingLevel, McpServer } from '@modelcontextprotocol/server';
import type { Memory } from '../memory/index.js';

const LOGGER = 'mnemo';
/** Ids a message lists at most; the count says how many there were. */
const IDS = 20;

/**
 * The memory whose gc, promotion and consolidation tell the client what they did, and the vault's
 * events sent as they come, until the connection closes. The level the client set with
 * logging/setLevel filters them (the SDK keeps it); before one, every level is sent.
 */
export function withClientLog(server: McpServer, memory: Memory): Memory {
  const log = (level: LoggingLevel, data: Record<string, unknown>) => {
    if (!server.isConnected()) return;
    void server.server.sendLoggingMessage({ level, logger: LOGGER, data }).catch(() => {});
  };
  const forgetting = derive(memory.forgetting, {
    async gc(...args: Parameters<Memory['forgetting']['gc']>) {
      const out = await memory.forgetting.gc(...args);
      log(out.dry_run ? 'debug' : 'notice', {
        event: 'gc',
        dry_run: out.dry_run,
        removed: out.removed_count,
        archived: out.archived_count,
        affected: out.total_affected,
        memory_ids: out.memory_ids.slice(0, IDS),
      });
      return out;
    },
  });
  const promotion = derive(memory.promotion, {
    async promote(...args: Parameters<Memory['promotion']['promote']>) {
      const out = await memory.promotion.promote(...args);
      log(out.failed.length > 0 ? 'warning' : out.dry_run ? 'debug' : 'notice', {
        event: 'promotion',
        dry_run: out.dry_run,
        candidates: out.candidates_found,
        promoted: out.promoted.slice(0, IDS),
        failed: out.failed.length,
      });
      return out;
    },
  });
  const consolidation = derive(memory.consolidation, {
    async consolidate(...args: Parameters<Memory['consolidation']['consolidate']>) {
      const out = await memory.consolidation.consolidate(...args);
      log(out.mode === 'preview' ? 'debug' : 'notice', {
        event: 'consolidation',
        mode: out.mode,
        clusters: out.consolidations.length,
        memory_ids: out.consolidations.flatMap((c) => (c.memory_id ? [c.memory_id] : [])),
        archived: out.consolidations.reduce((n, c) => n + (c.archived_ids?.length ?? 0), 0),
      });
      return out;
    },
  });
  const stopNotes = memory.overview.watchNotes((event) => {
    log('info', {
      event: 'vault',
      change: event.kind === 'upsert' ? (event.previous ? 'changed' : 'added') : 'removed',
      path: event.kind === 'upsert' ? event.note.path : event.previous.path,
    });
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    closed?.();
    stopNotes();
  };
  return { ...memory, forgetting, promotion, consolidation };
}

/** `base` with `methods` in place of its own: the rest still work on `base`'s state. */
function derive<T extends object>(base: T, methods: Partial<T>): T {
  return Object.assign(Object.create(base) as T, methods);
}
