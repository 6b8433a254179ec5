import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, memoryId, type ToolDeps } from './shared.js';

const statusOutput = {
  memory_id: z.string(),
  status: z.string().describe('active, promoted, archived, or deleted.'),
};

export function registerArchiveMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'archive_memory',
    {
      title: 'Archive a memory',
      description:
        'Moves a memory out of default searches without forgetting it; restore_memory brings it back.',
      inputSchema: { memory_id: memoryId().describe('The memory to archive.') },
      outputSchema: statusOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ memory_id }) => {
      const done = await memory.archive(memory_id);
      return answer(done, `Archived ${done.memory_id}.`);
    },
  );
}

const restoreOutput = {
  memory_id: z.string(),
  status: z
    .string()
    .describe('active, promoted (its note is still in the vault), or merged (into merged_into).'),
  merged_into: z
    .string()
    .optional()
    .describe('The live memory that holds the same content; the restored one was merged into it.'),
};

export function registerRestoreMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'restore_memory',
    {
      title: 'Restore a memory',
      description:
        'Brings back an archived memory, or one that gc or delete_memory forgot: as active, or as promoted when its note is still in the vault. ' +
        'When a live memory holds the same content (it was saved again meanwhile), the restored one is merged into it (uses added) instead of coming back as a second copy.',
      inputSchema: { memory_id: memoryId().describe('The memory to restore.') },
      outputSchema: restoreOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ memory_id }) => {
      const done = await memory.restore(memory_id);
      return answer(
        done,
        done.merged_into
          ? `${done.memory_id} has the same content as the live memory ${done.merged_into}: merged into it.`
          : `${done.memory_id} is ${done.status}.`,
      );
    },
  );
}

export function registerDeleteMemory(server: McpServer, { memory }: ToolDeps): void {
  server.registerTool(
    'delete_memory',
    {
      title: 'Delete a memory',
      description:
        'Removes a memory from the store. It is kept in forgotten.jsonl, so restore_memory can still bring it back.',
      inputSchema: { memory_id: memoryId().describe('The memory to delete.') },
      outputSchema: statusOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ memory_id }) => {
      const done = await memory.delete(memory_id);
      return answer(done, `Deleted ${done.memory_id} (recoverable with restore_memory).`);
    },
  );
}
