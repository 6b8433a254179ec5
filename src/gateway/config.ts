import { z } from 'zod';
import { ConfigError } from '../config/index.js';
import { readRegularFile } from '../platform/durable-file.js';
import { jsonSyntaxWhere } from '../platform/errors.js';

/**
 * The gateway's upstreams, read from a file in the shape Claude Desktop uses:
 * `{"mcpServers": {"<label>": {"command", "args", "env", "cwd"} | {"url", "headers"}}}`, each
 * entry with an optional `token` that opens only that upstream's route.
 */

// Trimmed as the Authorization header is; a blank token is refused, never taken as none.
const token = z
  .string({ error: 'token must be a string of 16 or more random characters' })
  .trim()
  .min(1, {
    error:
      'token is blank (empty or only white space): set 16 or more random characters (e.g. openssl rand -hex 32), or leave token out',
    abort: true,
  })
  .min(16, 'token is too short: use at least 16 random characters (e.g. openssl rand -hex 32)')
  .optional();

const stdioSpec = z.object({
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string(), { error: 'args must be a list of strings' }).default([]),
  env: z.record(z.string(), z.string(), { error: 'env must map names to strings' }).optional(),
  cwd: z.string().min(1, 'cwd must not be empty').optional(),
  token,
});

const urlSpec = z.object({
  url: z.url({ error: 'url must be an http(s) URL, e.g. https://host/mcp' }),
  headers: z
    .record(z.string(), z.string(), { error: 'headers must map names to strings' })
    .optional(),
  token,
});

export type StdioUpstreamSpec = z.infer<typeof stdioSpec>;
export type UrlUpstreamSpec = z.infer<typeof urlSpec>;
export type UpstreamSpec = StdioUpstreamSpec | UrlUpstreamSpec;

const LABEL_PATTERN = /^[a-z0-9_-]+$/;

/** Checks a parsed config file; throws ConfigError naming the label and the field to fix. */
export function parseGatewayConfig(
  raw: unknown,
  source = 'the gateway config',
): Record<string, UpstreamSpec> {
  const servers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new ConfigError(
      `${source} needs an "mcpServers" object: {"mcpServers": {"<label>": {...}}}`,
    );
  }
  const out: Record<string, UpstreamSpec> = {};
  const problems: string[] = [];
  for (const [label, entry] of Object.entries(servers)) {
    if (!LABEL_PATTERN.test(label)) {
      problems.push(
        `mcpServers."${label}": a label may only hold a-z, 0-9, _ and - (it becomes the path /mcp/<label>)`,
      );
      continue;
    }
    if (label === '__proto__') {
      // Kept in an object it would set the object's prototype: the upstream gone unseen.
      problems.push(`mcpServers.__proto__: a label cannot be "__proto__": rename it`);
      continue;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`mcpServers.${label}: must be an object with "command" or "url"`);
      continue;
    }
    const hasCommand = 'command' in entry;
    const hasUrl = 'url' in entry;
    if (hasCommand === hasUrl) {
      problems.push(
        `mcpServers.${label}: needs exactly one of "command" (a stdio server) or "url" (streamable HTTP)`,
      );
      continue;
    }
    const parsed = (hasCommand ? stdioSpec : urlSpec).safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.map(String).join('.');
        problems.push(`mcpServers.${label}${field ? `.${field}` : ''}: ${issue.message}`);
      }
      continue;
    }
    out[label] = parsed.data;
  }
  if (problems.length > 0) throw new ConfigError(`${source}:\n${problems.join('\n')}`);
  return out;
}

/** Reads and checks the file at `file` (MNEMO_GATEWAY_CONFIG). */
export function loadGatewayConfig(file: string): Record<string, UpstreamSpec> {
  let text: string;
  try {
    // A regular file only: a FIFO there would hang the start.
    text = readRegularFile(file, 1 << 20);
  } catch (error) {
    throw new ConfigError(
      `cannot read the gateway config ${file} (MNEMO_GATEWAY_CONFIG): ${(error as Error).message}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `the gateway config ${file} is not valid JSON${jsonSyntaxWhere(error, text) || unplaced(error, text)}: fix it there (its headers and env are not shown here)`,
    );
  }
  return parseGatewayConfig(raw, `the gateway config ${file}`);
}

/**
 * Where JSON.parse stopped in `text` when its message gives no position, as ` at line L, column
 * C`: the end, for "Unexpected end of JSON input"; for "Unexpected token 'x', "<the text around
 * it>" ...", the first character whose prefix fails so (the prefixes before it are a start of
 * JSON, cut short), found in some 20 parses. Nothing of the text is taken from the message.
 */
function unplaced(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : '';
  let at: number;
  if (message.startsWith('Unexpected end of JSON input')) at = text.length;
  else if (message.startsWith('Unexpected token')) {
    const fails = (length: number) => {
      try {
        JSON.parse(text.slice(0, length));
        return false;
      } catch (e) {
        return (e as Error).message.startsWith('Unexpected token');
      }
    };
    let low = 0;
    let high = text.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (fails(middle)) high = middle;
      else low = middle + 1;
    }
    at = low - 1;
  } else return '';
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

export function isStdioSpec(spec: UpstreamSpec): spec is StdioUpstreamSpec {
  return 'command' in spec;
}
