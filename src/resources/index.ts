// The memory as MCP resources: stats, the anchor, the review queue, each memory, the vault's notes
// and the context pack; and the tools' guide. The SDK registers them (templates/list,
// completions); listing, reading and subscriptions are handled here, over the namespace's memory
// the server was made for.
import type { ListResourcesResult, McpServer, Resource } from '@modelcontextprotocol/server';
import { ResourceTemplate } from '@modelcontextprotocol/server';
import { toolNames } from './help.js';
import { invalid, parseUri, type ReadDeps, readResource, URI } from './read.js';

/** Resources a resources/list page holds at most. */
export const PAGE_SIZE = 100;
/** Completions a template variable answers at most (the protocol's own cap). */
const COMPLETIONS = 100;
const CURSOR_KIND = 'mnemo-resources';

export interface ResourceDeps extends ReadDeps {
  /** Whether the transport carries notifications the server sends on its own (stdio does). */
  notifications: boolean;
}

export function registerResources(server: McpServer, deps: ResourceDeps): void {
  const { memory } = deps;
  const read = (uri: URL | string) => readResource(uri.toString(), deps);
  server.registerResource(
    'stats',
    URI.stats,
    {
      title: 'Memory stats',
      description:
        'memory_stats as JSON: counts, score spread, review, gc and promotion candidates',
      mimeType: 'application/json',
    },
    read,
  );
  server.registerResource(
    'anchor',
    URI.anchor,
    {
      title: 'Anchor',
      description:
        'The Markdown file the person keeps for the agent: anchor.md in the vault root, or MNEMO_ANCHOR_FILE',
      mimeType: 'text/markdown',
    },
    read,
  );
  server.registerResource(
    'review',
    URI.review,
    {
      title: 'Review queue',
      description: `Memories in the danger zone, most urgent first (at most 50): reinforce what is still true`,
      mimeType: 'application/json',
    },
    read,
  );
  server.registerResource(
    'help',
    URI.help,
    {
      title: 'Tool guide',
      description: "Each tool in a line; mnemo://help/{tool} has a tool's details",
      mimeType: 'text/markdown',
    },
    read,
  );
  server.registerResource(
    'tool-help',
    new ResourceTemplate(URI.helpTemplate, {
      list: undefined,
      complete: { tool: (value) => toolNames(value) },
    }),
    {
      title: "A tool's guide",
      description: 'What its description leaves out: behaviours, limits of each field, an example',
      mimeType: 'text/markdown',
    },
    (uri) => read(uri),
  );
  server.registerResource(
    'memory',
    new ResourceTemplate(URI.memoryTemplate, {
      list: undefined,
      complete: { id: (value) => memory.overview.idsStartingWith(value, COMPLETIONS) },
    }),
    {
      title: 'A memory',
      description:
        'One memory: Markdown with its properties, then its JSON (as open_memories gives it). Reading is not a use.',
    },
    (uri) => read(uri),
  );
  server.registerResource(
    'vault-note',
    new ResourceTemplate(URI.vaultTemplate, {
      list: undefined,
      complete: { path: (value) => memory.overview.notePaths(value, COMPLETIONS) },
    }),
    {
      title: 'A vault note',
      description:
        'The text of a Markdown note of the Obsidian vault, by its path in the vault (mnemo/note.md); only with a vault',
      mimeType: 'text/markdown',
    },
    (uri) => read(uri),
  );
  server.registerResource(
    'context',
    new ResourceTemplate(URI.contextTemplate, { list: undefined }),
    {
      title: 'Context pack',
      description:
        'The anchor, the memories most relevant to topic (without one, the liveliest) and those due for review, within max_tokens (default 2000, ~4 characters a token)',
      mimeType: 'text/markdown',
    },
    (uri) => read(uri),
  );

  // The SDK's handlers list every template's resources at once and read a URI after URL has
  // folded its `..` away; these page, and read the URI as sent.
  server.server.setRequestHandler('resources/list', async (request) =>
    listPage(deps, request.params?.cursor),
  );
  server.server.setRequestHandler('resources/read', async (request) =>
    readResource(request.params.uri, deps),
  );
  if (deps.notifications) subscriptions(server, deps);
}

/**
 * One page of resources/list, most useful first: stats, the anchor (when there is one), the
 * review queue, the tool guide, then the memories by score. The list is made again for each page:
 * a memory whose score moved past others between two pages may show twice or not at all.
 */
async function listPage(
  deps: ResourceDeps,
  cursor: string | undefined,
): Promise<ListResourcesResult> {
  const { memory } = deps;
  const offset = cursor === undefined ? 0 : readCursor(cursor, memory.overview.namespace);
  const fixed: Resource[] = [
    { uri: URI.stats, name: 'stats', title: 'Memory stats', mimeType: 'application/json' },
  ];
  if (memory.overview.anchor(deps.anchorFile)) {
    fixed.push({ uri: URI.anchor, name: 'anchor', title: 'Anchor', mimeType: 'text/markdown' });
  }
  fixed.push(
    { uri: URI.review, name: 'review', title: 'Review queue', mimeType: 'application/json' },
    { uri: URI.help, name: 'help', title: 'Tool guide', mimeType: 'text/markdown' },
  );
  const ids = await memory.overview.byScore();
  const total = fixed.length + ids.length;
  if (offset > total)
    throw invalid('the cursor is past the end of the list: list again without one');
  const resources: Resource[] = [];
  for (let i = offset; i < Math.min(total, offset + PAGE_SIZE); i++) {
    if (i < fixed.length) {
      resources.push(fixed[i] as Resource);
      continue;
    }
    const id = ids[i - fixed.length] as string;
    // Only the page's memories are read.
    const shown = await memory.overview.memory(id).catch(() => undefined);
    if (!shown) continue;
    resources.push({
      uri: URI.memory(id),
      name: firstLine(shown.text),
      title: firstLine(shown.text),
      mimeType: 'text/markdown',
      description: `score ${shown.score}, ${shown.record.status}, used ${shown.record.use_count} times`,
    });
  }
  const next = offset + PAGE_SIZE;
  return {
    resources,
    ...(next < total ? { nextCursor: makeCursor(memory.overview.namespace, next) } : {}),
  };
}

function makeCursor(namespace: string, offset: number): string {
  return Buffer.from(JSON.stringify({ k: CURSOR_KIND, n: namespace, o: offset })).toString(
    'base64url',
  );
}

/** The offset a cursor of this listing holds; any other cursor is -32602. */
function readCursor(cursor: string, namespace: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const c = parsed as { k?: unknown; n?: unknown; o?: unknown } | undefined;
  if (
    !c ||
    typeof c !== 'object' ||
    c.k !== CURSOR_KIND ||
    c.n !== namespace ||
    !Number.isInteger(c.o) ||
    (c.o as number) <= 0
  ) {
    throw invalid(
      'the cursor is not one of this resources/list: pass nextCursor as given, or list again without one',
    );
  }
  return c.o as number;
}

const firstLine = (text: string) => {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || '(empty)';
};

/**
 * resources/subscribe for a memory, the stats or the review queue: this server's client is sent
 * notifications/resources/updated when a subscribed memory is written or removed (by this
 * process or, once seen, another), and for the stats and the review queue when any memory is
 * (at most once a turn of the event loop). Subscriptions end with the connection.
 */
function subscriptions(server: McpServer, deps: ResourceDeps): void {
  const subscribed = new Set<string>();
  let stop: (() => void) | undefined;
  let summaryDue = false;
  const send = (uri: string) => {
    void server.server.sendResourceUpdated({ uri }).catch(() => {});
  };
  const summaries = () => {
    if (summaryDue || !(subscribed.has(URI.stats) || subscribed.has(URI.review))) return;
    summaryDue = true;
    queueMicrotask(() => {
      summaryDue = false;
      for (const uri of [URI.stats, URI.review]) if (subscribed.has(uri)) send(uri);
    });
  };
  const watch = () => {
    stop ??= deps.memory.overview.watchMemories({
      changed: (id) => {
        const uri = URI.memory(id);
        if (subscribed.has(uri)) send(uri);
        summaries();
      },
      reset: () => {
        for (const uri of subscribed) if (uri.startsWith('mnemo://memory/')) send(uri);
        summaries();
      },
    });
  };
  const unwatch = () => {
    stop?.();
    stop = undefined;
  };
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = request.params;
    const target = parseUri(uri);
    if (target.kind === 'memory') {
      // Subscribing to a memory that is not there is a mistake worth saying.
      await deps.memory.overview.memory(target.id).catch(() => {
        throw invalid(`no memory "${target.id}" to subscribe to: list them with resources/list`);
      });
      subscribed.add(URI.memory(target.id));
    } else if (target.kind === 'stats' || target.kind === 'review') {
      subscribed.add(uri);
    } else {
      throw invalid(
        `${uri} cannot be subscribed to: subscribe to a memory, mnemo://stats or mnemo://review`,
      );
    }
    watch();
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    const target = parseUri(request.params.uri);
    subscribed.delete(target.kind === 'memory' ? URI.memory(target.id) : request.params.uri);
    if (subscribed.size === 0) unwatch();
    return {};
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    closed?.();
    subscribed.clear();
    unwatch();
  };
}
