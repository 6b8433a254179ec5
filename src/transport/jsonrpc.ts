import { ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCErrorResponse, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { groupDigits as count } from '../platform/digits.js';
import { claimedRevision, unsupportedRevision } from './revisions.js';

/**
 * The faults of JSON-RPC framing and params, answered with a readable error instead of silence
 * or a raw schema dump. Messages never echo what was sent: only field names and kinds of value.
 */

export const rpcError = (
  code: number,
  message: string,
  id: RequestId | null = null,
): JSONRPCErrorResponse =>
  // JSON-RPC 2.0 answers a request it cannot identify with id null; the SDK's type leaves id out.
  ({ jsonrpc: '2.0', id, error: { code, message } }) as JSONRPCErrorResponse;

/** A message checked for framing: the message to deliver, or the error to answer with. */
export type Checked =
  | { message: JSONRPCMessage }
  | { reply: JSONRPCErrorResponse | JSONRPCErrorResponse[] };

const ONE_PER_LINE = 'send one JSON-RPC 2.0 message (an object) per line';

/**
 * Arrays and objects a message may nest: far more than MCP needs (a tool's meta is at most 8
 * deep, inside params), far fewer than it takes JSON.parse to stall. Parsing 1 MB of `[` holds
 * the event loop ~180 ms, for every namespace at once; counting the brackets first takes ~2 ms.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Members (key: value pairs) of all the objects of a message together: mnemo's largest call (a
 * meta of 16,000 characters) has under 3,000. The SDK's schemas copy every key of the objects
 * they check, several times: 80,000 keys in 1 MB held the event loop ~300 ms.
 */
export const MAX_JSON_MEMBERS = 10_000;

/**
 * Commas of a message (between array elements and object members): a list of mnemo's is at most
 * 100 long. zod checks every element of a list before its length: 500,000 wrong ones held the
 * event loop half a second, and their errors overflowed the stack.
 */
export const MAX_JSON_COMMAS = 20_000;

export interface JsonShapeLimits {
  depth: number;
  members: number;
  commas: number;
}

/**
 * Why JSON text is refused before it is parsed (nested too deep, too many members or values),
 * or undefined: one pass, brackets, colons and commas counted outside strings. For UTF-8 bytes read as
 * latin1 too: no byte of a multi-byte character is an ASCII one, so the structure reads the same.
 */
export function jsonShapeProblem(
  text: string,
  limits: JsonShapeLimits = {
    depth: MAX_JSON_DEPTH,
    members: MAX_JSON_MEMBERS,
    commas: MAX_JSON_COMMAS,
  },
): string | undefined {
  let depth = 0;
  let members = 0;
  let commas = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.depth) {
        return `invalid request: the message nests arrays and objects more than ${limits.depth} deep: send flatter JSON`;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (c === 0x3a && ++members > limits.members) {
      return `invalid request: the message's objects have more than ${count(limits.members)} members in all: send less per call`;
    } else if (c === 0x2c && ++commas > limits.commas) {
      return `invalid request: the message's lists and objects hold more than ${count(limits.commas)} values in all: send less per call`;
    }
  }
  return undefined;
}

/** Up to this many messages, a refused batch is answered an error each, with its id. */
const MAX_BATCH_ANSWERS = 100;

/** Parses one line of a stdio stream: JSON, one JSON-RPC 2.0 message, params that fit. */
export function checkLine(line: string): Checked {
  const shape = jsonShapeProblem(line);
  if (shape !== undefined) return { reply: rpcError(ProtocolErrorCode.InvalidRequest, shape) };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      reply: rpcError(
        ProtocolErrorCode.ParseError,
        `parse error: the line is not JSON: ${ONE_PER_LINE}`,
      ),
    };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      return {
        reply: rpcError(
          ProtocolErrorCode.InvalidRequest,
          `invalid request: an empty batch: ${ONE_PER_LINE}`,
        ),
      };
    }
    // A long batch gets one answer: an answer an element would make its reply (and the time to
    // write it) grow with what the client sent, up to the line's cap in error objects.
    if (value.length > MAX_BATCH_ANSWERS) {
      return {
        reply: rpcError(
          ProtocolErrorCode.InvalidRequest,
          `invalid request: batches are not supported (this one has ${value.length} messages): ${ONE_PER_LINE}`,
        ),
      };
    }
    // MCP dropped JSON-RPC batches (2025-06-18): each element is refused, with its id when it has one.
    return {
      reply: value.map((element) =>
        rpcError(
          ProtocolErrorCode.InvalidRequest,
          `invalid request: batches are not supported: ${ONE_PER_LINE}`,
          requestIdOf(element),
        ),
      ),
    };
  }
  return checkMessage(value);
}

/** Checks a parsed value as one JSON-RPC 2.0 message, then a request's params. */
function checkMessage(value: unknown): Checked {
  const problem = envelopeProblem(value);
  if (problem !== undefined) {
    return {
      reply: rpcError(
        ProtocolErrorCode.InvalidRequest,
        `invalid request: ${problem}`,
        requestIdOf(value),
      ),
    };
  }
  const params = (value as { params?: unknown }).params;
  if (
    params !== undefined &&
    (typeof params !== 'object' || params === null || Array.isArray(params))
  ) {
    return {
      reply: rpcError(
        ProtocolErrorCode.InvalidParams,
        `invalid params: "params" must be an object, not ${kindOf(params)}`,
        requestIdOf(value),
      ),
    };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    return {
      reply: rpcError(
        ProtocolErrorCode.InvalidRequest,
        `invalid request: not a JSON-RPC 2.0 request, notification or response: ${ONE_PER_LINE}`,
        requestIdOf(value),
      ),
    };
  }
  // A message that claims a revision is checked against it; its params are the SDK's to check
  // for that revision (a method the revision dropped is -32601, not params that do not fit).
  const revision = unsupportedRevision(parsed.data);
  if (revision) return { reply: revision };
  const fault = claimedRevision(parsed.data) === undefined ? paramsFault(parsed.data) : undefined;
  return fault ? { reply: fault } : { message: parsed.data };
}

function envelopeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) {
    return `a message must be an object, not ${kindOf(value)}: ${ONE_PER_LINE}`;
  }
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0": mnemo speaks JSON-RPC 2.0 only';
  if ('method' in m && typeof m.method !== 'string') {
    return `"method" must be a string, not ${kindOf(m.method)}`;
  }
  if ('method' in m && 'id' in m && !isRequestId(m.id)) {
    return `"id" must be a string or a number, not ${kindOf(m.id)}`;
  }
  if (!('method' in m) && !('id' in m)) {
    return 'a message needs a "method" (or, when it answers, an "id" and a "result" or "error")';
  }
  return undefined;
}

const isRequestId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

/** The id of what looks like a request, so its sender stops waiting; null otherwise. */
function requestIdOf(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null || !('method' in value)) return null;
  const id = (value as { id?: unknown }).id;
  return isRequestId(id) ? id : null;
}

type RequestSchema = z.ZodType & { shape: { method: { value: string } } };

/** The SDK's schema of each client request, by method (tools/call, initialize, ...). */
const requestSchemas = new Map<string, z.ZodType>(
  (ClientRequestSchema.options as readonly RequestSchema[]).map((s) => [s.shape.method.value, s]),
);

/**
 * A -32602 answer for a request whose params do not fit its method, naming each field and the
 * fix; undefined when they fit (or the method is not one the SDK knows: it answers -32601).
 * The SDK would otherwise answer such a request with its schema's raw issue dump as -32603.
 */
export function paramsFault(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const schema = requestSchemas.get(message.method);
  if (!schema) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.map(String).join('.');
    const got = valueAt(message, issue.path);
    if (where === 'params.arguments' && typeof got === 'string') {
      return 'params.arguments must be an object of the tool\'s arguments, not a string: send "arguments": {"name": value, ...} itself, not JSON text in a string';
    }
    if (issue.code === 'invalid_type') {
      return `${where || 'params'} must be ${article(issue.expected)}, not ${kindOf(got)}`;
    }
    return `${where || 'params'}: ${issue.message}`;
  });
  return rpcError(
    ProtocolErrorCode.InvalidParams,
    `invalid params for ${message.method}: ${problems.join('; ')}`,
    message.id,
  );
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let at = root;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

function article(expected: string): string {
  if (expected === 'record' || expected === 'object') return 'an object';
  if (expected === 'array') return 'a list';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'a list';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
