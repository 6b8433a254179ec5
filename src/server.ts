import { randomBytes } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/server';
import { logVaultToClient } from './logging/client-log.js';
import { registerPrompts } from './prompts/index.js';
import { registerResources } from './resources/index.js';
import { ANSWER_WITHIN_MS } from './tools/ask-person.js';
import { registerTools, type ToolDeps } from './tools/index.js';
import { VERSION } from './version.js';

export interface ServerDeps extends Omit<ToolDeps, 'asking'> {
  /** MNEMO_ANCHOR_FILE: the anchor of the context pack (else anchor.md in the vault root). */
  anchorFile?: string | undefined;
  /**
   * Whether the transport carries what the server sends on its own (stdio and in-process links
   * do; stateless HTTP with JSON answers does not): then resources can be subscribed to, and
   * gc, promotion, consolidation and the vault's notes are logged to the client.
   */
  notifications?: boolean;
  /**
   * save_memory asking the person about a conflict: `key` signs the question's state, and must
   * be the same for every server that may get the answer (HTTP: one per namespace for the
   * process; else each server makes its own); `answerWithinMs` bounds the wait.
   */
  asking?: { key?: Uint8Array; answerWithinMs?: number } | undefined;
}

const STATIC_LIST = { ttlMs: 3_600_000, cacheScope: 'public' } as const;

/** An MCP server with every memory tool, resource and prompt; transports only connect it. */
export function createServer(deps: ServerDeps): McpServer {
  const notifications = deps.notifications ?? true;
  // Without a channel for what the server sends on its own, no list is said to announce changes.
  const lists = notifications ? {} : { listChanged: false };
  const server = new McpServer(
    { name: 'mnemo', title: 'mnemo memory', version: VERSION },
    {
      capabilities: {
        tools: lists,
        resources: lists,
        prompts: lists,
        logging: {},
        completions: {},
      },
      // What is the same for every caller and changes only with mnemo's version may be kept an
      // hour (2026-07-28 clients cache lists); what reads the memory is never cached.
      cacheHints: {
        'server/discover': STATIC_LIST,
        'tools/list': STATIC_LIST,
        'prompts/list': STATIC_LIST,
        'resources/templates/list': STATIC_LIST,
      },
      instructions:
        'mnemo is a memory that fades unless used. search_memory before answering from scratch; save_memory what is worth ' +
        'remembering; call observe_memory_usage with the ids of memories that helped. Results marked review_candidate are ' +
        'about to be forgotten: reinforce them if they are still true and useful. The prompt recall (and the resource ' +
        "mnemo://context) gives a context pack for a topic. Each tool's details (behaviours, limits, an example) are " +
        'in the resource mnemo://help/<tool>; mnemo://help lists them.',
    },
  );
  if (notifications) logVaultToClient(server, deps.memory);
  registerTools(server, {
    memory: deps.memory,
    logger: deps.logger,
    asking: {
      key: deps.asking?.key ?? randomBytes(32),
      answerWithinMs: deps.asking?.answerWithinMs ?? ANSWER_WITHIN_MS,
      push: notifications,
    },
  });
  const readDeps = { memory: deps.memory, logger: deps.logger, anchorFile: deps.anchorFile };
  registerResources(server, { ...readDeps, notifications });
  registerPrompts(server, readDeps);
  return server;
}
