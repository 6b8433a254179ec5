import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ToolContract } from '../contract/shared.js';
import type { Memory } from '../memory/index.js';
import { HIDDEN_PATH_LOG, remoteMessage, UserError } from '../platform/errors.js';
import type { AskSettings } from './ask-person.js';

export interface ToolDeps {
  memory: Memory;
  /** Where a tool's unexpected failure is logged (stderr: stdout may be the protocol's). */
  logger: Logger;
  /** How save_memory asks the person about a conflict; without it, it never asks. */
  asking?: AskSettings | undefined;
}

export type ToolExtra = ServerContext;

export interface ToolHandler<I extends z.ZodObject, O extends z.ZodObject> {
  /**
   * The call into the memory; its answer is the tool's structuredContent. An input-required
   * result (a question for the person, 2026-07-28) goes back as it is: the client asks, then
   * calls again with the answer.
   */
  run(input: z.infer<I>, extra: ToolExtra): Promise<z.infer<O> | InputRequiredResult>;
  /** The same answer in a few lines, for clients that show text only. */
  text(output: z.infer<O>, input: z.infer<I>): string;
}

/**
 * Registers a tool from its contract. The MCP edge of every error: a UserError is an `isError`
 * answer with its message (it names the field and the fix), unless that names a path of the
 * server (remoteMessage); anything else is mnemo's fault, logged, and answered without its
 * internals.
 */
export function registerContract<I extends z.ZodObject, O extends z.ZodObject>(
  server: McpServer,
  logger: Logger,
  contract: ToolContract<I, O>,
  handler: ToolHandler<I, O>,
): void {
  const call = async (
    input: z.infer<I>,
    extra: ToolExtra,
  ): Promise<CallToolResult | InputRequiredResult> => {
    try {
      const output = await handler.run(input, extra);
      if (isInputRequiredResult(output)) return output;
      return {
        content: [{ type: 'text', text: handler.text(output, input) }],
        structuredContent: output,
      };
    } catch (error) {
      return failure(callerMessage(logger, contract.name, error));
    }
  };
  server.registerTool(
    contract.name,
    {
      title: contract.title,
      description: contract.description,
      inputSchema: contract.input,
      outputSchema: contract.output,
      annotations: contract.annotations,
    },
    // The SDK types a handler from a literal shape; this one's shape is the contract's parameter.
    call as never,
  );
}

/**
 * What the caller of tool `tool` is told of `error`: a thrown one, or one a tool answers among its
 * results (a memory promote_memory could not write while it wrote others). A UserError's message,
 * unless it names a path of the server (remoteMessage); anything else is mnemo's fault, logged,
 * and told without its internals.
 */
export function callerMessage(logger: Logger, tool: string, error: unknown): string {
  if (error instanceof UserError) {
    const { message, hidden } = remoteMessage(error);
    if (hidden) logger.warn({ tool, err: error.name }, HIDDEN_PATH_LOG);
    return message;
  }
  // The arguments stay out of the log: they may hold what the person asked to remember.
  logger.error({ tool, err: error }, 'tool call failed');
  return `${tool} failed inside mnemo (the details are in its log); try again, and report it if it keeps failing`;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
