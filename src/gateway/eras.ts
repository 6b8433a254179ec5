import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Implementation,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { UpstreamError } from './errors.js';

/**
 * The two families of MCP revisions a caller or an upstream speaks: `legacy` opens with
 * initialize (2024-10-07 to 2025-11-25), `modern` sends its revision and identity in every
 * request's `_meta` and has server/discover (2026-07-28).
 */
export type Era = 'modern' | 'legacy';

/** The `_meta` keys of a 2026-07-28 request that describe the hop, not the call. */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];

/** Results a 2026-07-28 client may cache: they carry ttlMs and cacheScope. */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A caller's params as the upstream's era wants them: the caller's progress token dropped (the
 * channel puts in its own), and the 2026-07-28 envelope for the upstream's hop. A 2026-07-28
 * caller's own identity and capabilities go on to a 2026-07-28 upstream, so what the upstream
 * asks of it (input_required) it can answer; a 2025 caller is known to neither, so the gateway
 * names itself and declares none.
 */
export function paramsForUpstream(
  params: Record<string, unknown> | undefined,
  upstream: { era: Era; version: string },
  gateway: Implementation,
): Record<string, unknown> | undefined {
  const meta = isObject(params?._meta) ? params._meta : undefined;
  if (meta === undefined && upstream.era === 'legacy') return params;
  const out: Record<string, unknown> = { ...meta };
  delete out.progressToken;
  if (upstream.era === 'legacy') {
    for (const key of ENVELOPE_KEYS) delete out[key];
  } else {
    out[PROTOCOL_VERSION_META_KEY] = upstream.version;
    out[CLIENT_INFO_META_KEY] ??= gateway;
    out[CLIENT_CAPABILITIES_META_KEY] ??= {};
  }
  const { _meta: _dropped, ...rest } = params ?? {};
  return Object.keys(out).length > 0 ? { ...rest, _meta: out } : rest;
}

/**
 * An upstream's result as the caller's era wants it: untouched between callers and upstreams of
 * one era, the wire-only fields of 2026-07-28 (resultType, ttlMs, cacheScope, the server's
 * identity in `_meta`) added or dropped between eras, as the SDK's own codecs do.
 */
export function resultForCaller(
  method: string,
  result: Record<string, unknown>,
  caller: Era,
  upstream: Era,
  serverInfo: Implementation | undefined,
  label: string,
): Record<string, unknown> {
  if (caller === upstream) return result;
  return caller === 'modern'
    ? toModern(method, result, serverInfo)
    : toLegacy(method, result, label);
}

function toModern(
  method: string,
  result: Record<string, unknown>,
  serverInfo: Implementation | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result, resultType: 'complete' };
  if (CACHEABLE.has(method)) {
    if (!(Number.isInteger(out.ttlMs) && (out.ttlMs as number) >= 0)) out.ttlMs = 0;
    if (out.cacheScope !== 'public' && out.cacheScope !== 'private') out.cacheScope = 'private';
  }
  if (method === 'tools/call' && !Array.isArray(out.content)) out.content = [];
  if (method === 'tools/list' && Array.isArray(out.tools)) {
    // Tasks are gone from 2026-07-28: a tool's execution.taskSupport has no place there.
    out.tools = out.tools.map((tool) => {
      if (!isObject(tool) || !isObject(tool.execution)) return tool;
      const { taskSupport: _gone, ...execution } = tool.execution;
      const { execution: _old, ...rest } = tool;
      return Object.keys(execution).length > 0 ? { ...rest, execution } : rest;
    });
  }
  const meta = isObject(out._meta) ? out._meta : {};
  if (serverInfo && meta[SERVER_INFO_META_KEY] === undefined) {
    out._meta = { ...meta, [SERVER_INFO_META_KEY]: serverInfo };
  }
  return out;
}

function toLegacy(
  method: string,
  result: Record<string, unknown>,
  label: string,
): Record<string, unknown> {
  const { resultType, ttlMs: _ttl, cacheScope: _scope, ...out } = result;
  if (resultType !== undefined && resultType !== 'complete') {
    throw new UpstreamError(
      -32603,
      `upstream "${label}" asks the caller for more input (resultType ${JSON.stringify(resultType)}), which a 2025 client cannot give through the gateway: call it in 2026-07-28`,
    );
  }
  // 2025 wants an object in structuredContent, and an object at the root of an output schema.
  if (method === 'tools/call' && 'structuredContent' in out && !isObject(out.structuredContent)) {
    out.structuredContent = { result: out.structuredContent };
  }
  if (method === 'tools/list' && Array.isArray(out.tools)) {
    out.tools = out.tools.map((tool) =>
      isObject(tool) && isObject(tool.outputSchema) && tool.outputSchema.type !== 'object'
        ? { ...tool, outputSchema: wrapSchema(tool.outputSchema) }
        : tool,
    );
  }
  return out;
}

/**
 * A non-object output schema as 2025 wants it: `{type: object, properties: {result}}`, its own
 * `#` pointers moved under the new root (the SDK's 2025 codec does the same for its servers).
 */
function wrapSchema(natural: Record<string, unknown>): Record<string, unknown> {
  const { $schema, ...rest } = natural;
  return {
    ...(typeof $schema === 'string' ? { $schema } : {}),
    type: 'object',
    properties: { result: movePointers(rest) },
    required: ['result'],
  };
}

/** Keywords whose values are data, not schemas: a `$ref` inside one is left as it is. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names (any, even `default`) to schemas. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/**
 * `schema` with its same-document `$ref` and `$dynamicRef` pointers moved under
 * /properties/result; a part with a base `$id` of its own resolves against it, and stays.
 */
function movePointers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(movePointers);
  if (!isObject(schema)) return schema;
  if (typeof schema.$id === 'string' && !schema.$id.startsWith('#')) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') {
      out[key] =
        value === '#' || value.startsWith('#/') ? `#/properties/result${value.slice(1)}` : value;
    } else if (DATA_KEYWORDS.has(key)) {
      out[key] = value;
    } else if (NAME_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, movePointers(sub)]),
      );
    } else {
      out[key] = movePointers(value);
    }
  }
  return out;
}
