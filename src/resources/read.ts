// What each mnemo:// URI reads, from the URI exactly as the client sent it: the SDK's own read
// handler parses it with URL first, which quietly folds `..` away; here `..` is refused instead.
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { buildContextPack, MAX_PACK_TOKENS, MIN_PACK_TOKENS } from '../memory/context-pack.js';
import { MemoryError } from '../memory/errors.js';
import type { Memory } from '../memory/index.js';
import type { ReviewItem } from '../memory/overview.js';
import { HIDDEN_PATH_LOG, remoteMessage, UserError } from '../platform/errors.js';
import { DEFAULT_NAMESPACE } from '../storage/engine.js';
import { helpIndex, toolHelp } from './help.js';

/**
 * The JSON-RPC error of a resource that does not exist: -32602 with the URI in its data, as the
 * 2026-07-28 revision says (the SDK answers the earlier revisions' -32002 the same way).
 */
export const RESOURCE_NOT_FOUND = ProtocolErrorCode.InvalidParams;
/** Characters of a URI an error gives back. */
const MAX_URI_ECHO = 2_000;
/** Memories the review resource lists at most. */
export const REVIEW_LIMIT = 50;

export const URI = {
  stats: 'mnemo://stats',
  anchor: 'mnemo://anchor',
  review: 'mnemo://review',
  help: 'mnemo://help',
  helpTemplate: 'mnemo://help/{tool}',
  memory: (id: string) => `mnemo://memory/${encodeURIComponent(id)}`,
  memoryTemplate: 'mnemo://memory/{id}',
  vaultTemplate: 'mnemo://vault/{+path}',
  contextTemplate: 'mnemo://context{?topic,max_tokens}',
} as const;

/**
 * A JSON-RPC error of a resource request. Not McpError: the SDK sends an error's message as it
 * is, and McpError's already starts with "MCP error <code>:", which the client adds again.
 */
export class ResourceError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** What the error is about, for the client to read: `{ uri }` of a resource not found. */
    readonly data?: { uri: string },
  ) {
    super(message);
  }
}

/** What a memory id may be: a UUID as mnemo makes them, or an imported record's id. */
const MEMORY_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface ReadDeps {
  memory: Memory;
  logger: Logger;
  anchorFile?: string | undefined;
}

export type Target =
  | { kind: 'stats' | 'anchor' | 'review' }
  | { kind: 'help'; tool: string | undefined }
  | { kind: 'memory'; id: string }
  | { kind: 'vault'; path: string }
  | { kind: 'context'; topic: string | undefined; maxTokens: number | undefined };

/** The resource a URI names, or a ResourceError: -32602 when malformed or unknown (the data of an unknown one holds its URI). */
export function parseUri(uri: string): Target {
  if (!uri.startsWith('mnemo://')) throw notFound(uri);
  const rest = uri.slice('mnemo://'.length);
  if (rest === 'stats' || rest === 'anchor' || rest === 'review') return { kind: rest };
  if (rest === 'help') return { kind: 'help', tool: undefined };
  if (rest.startsWith('help/')) {
    return { kind: 'help', tool: decode(rest.slice('help/'.length), 'the tool name') };
  }
  if (rest.startsWith('memory/')) {
    const id = decode(rest.slice('memory/'.length), 'the memory id');
    if (!MEMORY_ID.test(id)) {
      throw invalid(
        `"${id}" is not a memory id (1 to 128 of A-Z, a-z, 0-9, _ and -): complete mnemo://memory/{id} or list resources`,
      );
    }
    return { kind: 'memory', id };
  }
  if (rest.startsWith('vault/')) {
    return { kind: 'vault', path: decode(rest.slice('vault/'.length), 'the vault path') };
  }
  if (rest === 'context' || rest.startsWith('context?')) {
    const query = new URLSearchParams(rest.slice('context'.length));
    for (const key of query.keys()) {
      if (key !== 'topic' && key !== 'max_tokens') {
        throw invalid(`mnemo://context takes topic and max_tokens, not "${key}"`);
      }
      // Which of two would be meant is a guess: say so rather than take the first.
      if (query.getAll(key).length > 1) {
        throw invalid(`mnemo://context takes ${key} once, not ${query.getAll(key).length} times`);
      }
    }
    const topic = query.get('topic') ?? undefined;
    const max = query.get('max_tokens');
    let maxTokens: number | undefined;
    if (max !== null) {
      maxTokens = Number(max);
      if (
        !Number.isInteger(maxTokens) ||
        maxTokens < MIN_PACK_TOKENS ||
        maxTokens > MAX_PACK_TOKENS
      ) {
        throw invalid(
          `max_tokens must be a whole number from ${MIN_PACK_TOKENS} to ${MAX_PACK_TOKENS}, not "${max}"`,
        );
      }
    }
    return { kind: 'context', topic, maxTokens };
  }
  throw notFound(uri);
}

export async function readResource(uri: string, deps: ReadDeps): Promise<ReadResourceResult> {
  const target = parseUri(uri);
  const { memory } = deps;
  try {
    switch (target.kind) {
      case 'stats':
        return json(uri, await memory.stats.summary());
      case 'review': {
        const items = await memory.overview.reviewQueue(REVIEW_LIMIT);
        const conflicts = await memory.conflicts.open(REVIEW_LIMIT);
        return json(uri, {
          count: items.length,
          limit: REVIEW_LIMIT,
          memories: items.map(reviewEntry),
          // Pairs that contradict, until settle_conflict: `first` is the newer.
          conflicts,
        });
      }
      case 'anchor': {
        const anchor = memory.overview.anchor(deps.anchorFile);
        if (!anchor) {
          throw new ResourceError(
            RESOURCE_NOT_FOUND,
            memory.overview.namespace === DEFAULT_NAMESPACE
              ? 'there is no anchor: write anchor.md in the vault root, or set MNEMO_ANCHOR_FILE to a Markdown file'
              : `there is no anchor: write ${memory.overview.anchorNote() ?? 'anchor.md in your folder'} in the vault (each namespace has its own)`,
          );
        }
        return { contents: [{ uri, mimeType: 'text/markdown', text: anchor.text }] };
      }
      case 'help': {
        const text = target.tool === undefined ? helpIndex() : toolHelp(target.tool);
        if (text === undefined) {
          throw new ResourceError(
            RESOURCE_NOT_FOUND,
            `no tool ${JSON.stringify(target.tool?.slice(0, 100))}: mnemo://help lists them`,
          );
        }
        return { contents: [{ uri, mimeType: 'text/markdown', text }] };
      }
      case 'memory':
        return await memoryContents(uri, target.id, memory);
      case 'vault':
        return {
          contents: [
            { uri, mimeType: 'text/markdown', text: memory.overview.readNote(target.path) },
          ],
        };
      case 'context': {
        const pack = await buildContextPack(memory, {
          topic: target.topic,
          maxTokens: target.maxTokens,
          anchorFile: deps.anchorFile,
        });
        return { contents: [{ uri, mimeType: 'text/markdown', text: pack.text }] };
      }
    }
  } catch (error) {
    throw protocolError(error, deps.logger, uri);
  }
}

/** The memory as Markdown with its properties, then the same as open_memories gives it. */
async function memoryContents(
  uri: string,
  id: string,
  memory: Memory,
): Promise<ReadResourceResult> {
  const { record, text, score } = await memory.overview.memory(id);
  const opened = (await memory.recall.open({ memory_ids: [id] })).memories[0];
  const properties: [string, unknown][] = [
    ['memory_id', record.id],
    ['status', record.status],
    ['tags', record.meta.tags],
    ['entities', record.entities],
    ['created_at', iso(record.created_at)],
    ['last_used', iso(record.last_used)],
    ['use_count', record.use_count],
    ['strength', record.strength],
    ['score', score],
    ...(record.promoted_to ? ([['promoted_to', record.promoted_to]] as [string, unknown][]) : []),
    ...(record.meta.source ? ([['source', record.meta.source]] as [string, unknown][]) : []),
  ];
  // JSON values are YAML: the properties read back whatever the content holds.
  const front = properties.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join('\n');
  return {
    contents: [
      { uri, mimeType: 'text/markdown', text: `---\n${front}\n---\n${text}\n` },
      { uri, mimeType: 'application/json', text: JSON.stringify(opened ?? null, null, 2) },
    ],
  };
}

function reviewEntry(item: ReviewItem) {
  return {
    memory_id: item.record.id,
    uri: URI.memory(item.record.id),
    content:
      item.record.content.length > 300
        ? `${item.record.content.slice(0, 299)}…`
        : item.record.content,
    tags: item.record.meta.tags,
    score: item.score,
    review_priority: item.review_priority,
    use_count: item.record.use_count,
    last_used: item.record.last_used,
  };
}

function json(uri: string, value: unknown): ReadResourceResult {
  return {
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
  };
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalid(
      `${what} in the URI is not valid percent-encoding: encode it with encodeURIComponent`,
    );
  }
}

export function invalid(message: string): ResourceError {
  return new ResourceError(ProtocolErrorCode.InvalidParams, message);
}

function notFound(uri: string): ResourceError {
  return new ResourceError(
    RESOURCE_NOT_FOUND,
    `no resource ${JSON.stringify(uri.slice(0, 200))}: list them with resources/list and resources/templates/list`,
    { uri: uri.slice(0, MAX_URI_ECHO) },
  );
}

/**
 * The protocol's error for what reading failed on: a memory or note that is not there is not found,
 * another UserError (a path out of the vault) -32602 with its message; anything else is logged
 * and answered without its internals.
 */
export function protocolError(error: unknown, logger: Logger, uri: string): ResourceError {
  if (error instanceof ResourceError) return error;
  if (error instanceof UserError) {
    const { message, hidden } = remoteMessage(error);
    if (hidden) logger.warn({ err: error.name }, HIDDEN_PATH_LOG);
    return error instanceof MemoryError
      ? new ResourceError(RESOURCE_NOT_FOUND, message, { uri: uri.slice(0, MAX_URI_ECHO) })
      : invalid(message);
  }
  logger.error(
    { err: error, resource: uri.split('/').slice(0, 3).join('/') },
    'resource read failed',
  );
  return new ResourceError(
    ProtocolErrorCode.InternalError,
    'reading the resource failed inside mnemo (the details are in its log); try again',
  );
}
