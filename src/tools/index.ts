import type { ListToolsResult, McpServer } from '@modelcontextprotocol/server';
import { registerArchiveMemory } from './archive-memory.js';
import { registerClusterMemories } from './cluster-memories.js';
import { registerConsolidateMemories } from './consolidate-memories.js';
import { registerCreateRelation } from './create-relation.js';
import { registerDeleteMemory } from './delete-memory.js';
import { registerDeleteRelation } from './delete-relation.js';
import { registerGc } from './gc.js';
import { registerMemoryStats } from './memory-stats.js';
import { registerObserveMemoryUsage } from './observe-memory-usage.js';
import { registerOpenMemories } from './open-memories.js';
import { registerPromoteMemory } from './promote-memory.js';
import { registerReadGraph } from './read-graph.js';
import type { ToolDeps } from './register.js';
import { registerRestoreMemory } from './restore-memory.js';
import { registerSaveMemory } from './save-memory.js';
import { registerSearchMemory } from './search-memory.js';
import { registerSearchUnified } from './search-unified.js';
import { registerSettleConflict } from './settle-conflict.js';
import { registerTouchMemory } from './touch-memory.js';
import { registerUpdateMemory } from './update-memory.js';

export type { ToolDeps } from './register.js';

/**
 * The tools/list answer, the same for every server of the process: the SDK converts every
 * schema to JSON Schema on each tools/list (about 10 ms for mnemo's), and a server is made for
 * each HTTP request.
 */
let toolList: Promise<ListToolsResult> | undefined;

export function registerTools(server: McpServer, deps: ToolDeps): void {
  registerSaveMemory(server, deps);
  registerSearchMemory(server, deps);
  registerTouchMemory(server, deps);
  registerObserveMemoryUsage(server, deps);
  registerGc(server, deps);
  registerPromoteMemory(server, deps);
  registerOpenMemories(server, deps);
  registerArchiveMemory(server, deps);
  registerRestoreMemory(server, deps);
  registerDeleteMemory(server, deps);
  registerCreateRelation(server, deps);
  registerUpdateMemory(server, deps);
  registerReadGraph(server, deps);
  registerDeleteRelation(server, deps);
  registerMemoryStats(server, deps);
  registerSearchUnified(server, deps);
  registerClusterMemories(server, deps);
  registerConsolidateMemories(server, deps);
  registerSettleConflict(server, deps);
  // The SDK's own answer, made once: its handler is not public, so it is read as the SDK keeps it.
  const sdk = server.server as unknown as {
    _getRequestHandler(
      method: string,
    ): ((...args: never[]) => Promise<ListToolsResult>) | undefined;
  };
  const list = sdk._getRequestHandler('tools/list');
  if (list === undefined) return;
  server.server.setRequestHandler('tools/list', async (request, ctx) => {
    toolList ??= list(request as never, ctx as never);
    // A copy: each revision's encoding adds its own fields to the answer.
    return { ...(await toolList) };
  });
}
