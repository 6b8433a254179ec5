import type { McpServer } from '@modelcontextprotocol/server';
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
import { registerTouchMemory } from './touch-memory.js';
import { registerUpdateMemory } from './update-memory.js';

export type { ToolDeps } from './register.js';

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
}
