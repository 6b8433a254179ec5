// Every tool's contract, in the order the tools are listed: what mnemo://help describes.
import { archiveMemory } from './archive-memory.js';
import { clusterMemories } from './cluster-memories.js';
import { consolidateMemories } from './consolidate-memories.js';
import { createRelation } from './create-relation.js';
import { deleteMemory } from './delete-memory.js';
import { deleteRelation } from './delete-relation.js';
import { gc } from './gc.js';
import { memoryStats } from './memory-stats.js';
import { observeMemoryUsage } from './observe-memory-usage.js';
import { openMemories } from './open-memories.js';
import { promoteMemory } from './promote-memory.js';
import { readGraph } from './read-graph.js';
import { restoreMemory } from './restore-memory.js';
import { saveMemory } from './save-memory.js';
import { searchMemory } from './search-memory.js';
import { searchUnified } from './search-unified.js';
import { settleConflict } from './settle-conflict.js';
import type { ToolContract } from './shared.js';
import { touchMemory } from './touch-memory.js';
import { updateMemory } from './update-memory.js';

export const TOOL_CONTRACTS: readonly ToolContract[] = [
  saveMemory,
  searchMemory,
  touchMemory,
  observeMemoryUsage,
  gc,
  promoteMemory,
  openMemories,
  archiveMemory,
  restoreMemory,
  deleteMemory,
  createRelation,
  updateMemory,
  readGraph,
  deleteRelation,
  memoryStats,
  searchUnified,
  clusterMemories,
  consolidateMemories,
  settleConflict,
];
