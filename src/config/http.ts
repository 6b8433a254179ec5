// The settings of `mnemo serve`'s HTTP side: address, tokens, hosts, limits, public URL, OAuth.
import { z } from 'zod';
import { trimEndChar } from '../platform/linear-text.js';
import { bool, number, resolvedPath, type Setting } from './rows.js';

/** What the HTTP transport listens on and lets in. */
export const HTTP = {
  httpHost: {
    variable: 'MNEMO_HTTP_HOST',
    flag: '--host',
    default: '127.0.0.1',
    schema: z.string().min(1, 'MNEMO_HTTP_HOST must not be empty: e.g. 127.0.0.1'),
    meaning: '`mnemo serve` address; a non-loopback one needs a token',
  },
  httpPort: {
    variable: 'MNEMO_HTTP_PORT',
    flag: '--port',
    default: 7744,
    schema: number('MNEMO_HTTP_PORT', 'set e.g. 7744').refine(
      (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
      { message: 'MNEMO_HTTP_PORT must be a port number from 0 to 65535, e.g. 7744' },
    ),
    meaning: '`mnemo serve` port (0 picks a free one)',
  },
  authToken: {
    variable: 'MNEMO_AUTH_TOKEN',
    // Set but blank must not mean "no auth": it is refused, not taken as unset.
    blankIsValue: true,
    schema: z
      .string()
      .trim()
      .min(1, {
        error:
          'MNEMO_AUTH_TOKEN is set but blank (empty or only white space), which would leave /mcp without auth: set it to 16 or more random characters (e.g. openssl rand -hex 32), or unset it',
        abort: true,
      })
      .min(
        16,
        'MNEMO_AUTH_TOKEN is too short: use at least 16 random characters (e.g. openssl rand -hex 32)',
      )
      .optional(),
    meaning: 'bearer token for `/mcp` (16+ characters; set but blank is refused)',
  },
  tokensFile: {
    variable: 'MNEMO_TOKENS',
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning: 'a token file: which namespaces each bearer token of `/mcp` may use',
  },
  allowedHosts: {
    variable: 'MNEMO_ALLOWED_HOSTS',
    default: () => [],
    read: (text) =>
      text
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    schema: z.array(z.string()),
    meaning: 'extra Host names, comma-separated, `*.example.com` wildcards',
  },
  httpBodyLimit: {
    variable: 'MNEMO_HTTP_BODY_LIMIT',
    default: '1mb',
    schema: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, 'MNEMO_HTTP_BODY_LIMIT must be a size such as 1mb or 512kb'),
    meaning: 'largest request body (413 past it)',
  },
  rateLimitPerMinute: {
    variable: 'MNEMO_RATE_LIMIT',
    default: 600,
    schema: number('MNEMO_RATE_LIMIT', 'set calls a minute, e.g. 600').refine(
      (v) => Number.isInteger(v) && v >= 0,
      {
        message:
          'MNEMO_RATE_LIMIT must be a whole number of calls a minute (0 turns it off), e.g. 600',
      },
    ),
    meaning:
      'calls a minute per verified token on `/mcp` routes, per client address without one (0: no limit)',
  },
  publicUrl: {
    variable: 'MNEMO_PUBLIC_URL',
    read: (text) => trimEndChar(text.trim(), '/'),
    schema: z
      .url({
        protocol: /^https?$/,
        error: 'MNEMO_PUBLIC_URL must be an http(s) URL, e.g. https://name.trycloudflare.com',
      })
      .optional(),
    meaning: 'the public URL (tunnel); when set, gateway.json is written',
  },
  oauth: {
    variable: 'MNEMO_OAUTH',
    default: false,
    schema: bool('MNEMO_OAUTH'),
    meaning:
      '`mnemo serve` also answers OAuth 2.1 clients (claude.ai, ChatGPT) at `/connect/mcp` (also `--oauth`); needs a public URL and a token',
  },
} satisfies Record<string, Setting>;
