// The settings of the gateway: its upstreams, gateway.json, the proxied calls' time, the tunnel.
import { z } from 'zod';
import { inDataDir, number, resolvedPath, type Setting } from './rows.js';

/** The other MCP servers behind /mcp/<label>, and cloudflared. */
export const GATEWAY = {
  gatewayConfig: {
    variable: 'MNEMO_GATEWAY_CONFIG',
    read: resolvedPath,
    schema: z.string().min(1).optional(),
    meaning: 'upstream MCP servers, `{"mcpServers": {...}}`',
  },
  gatewayManifest: {
    variable: 'MNEMO_GATEWAY_MANIFEST',
    ...inDataDir('gateway.json'),
    meaning: 'where gateway.json goes',
  },
  gatewayTimeoutMs: {
    variable: 'MNEMO_GATEWAY_TIMEOUT_MS',
    default: 600_000,
    schema: number('MNEMO_GATEWAY_TIMEOUT_MS', 'set e.g. 600000').refine((v) => v >= 1000, {
      message:
        'MNEMO_GATEWAY_TIMEOUT_MS must be at least 1000 milliseconds, e.g. 600000 (10 minutes)',
    }),
    meaning: 'how long a proxied call may run (progress restarts the clock)',
  },
  cloudflared: {
    variable: 'MNEMO_CLOUDFLARED',
    default: 'cloudflared',
    schema: z.string().min(1, 'MNEMO_CLOUDFLARED must not be empty: a path to cloudflared'),
    meaning: 'the cloudflared binary for `mnemo serve --tunnel`',
  },
  tunnelRestartMs: {
    variable: 'MNEMO_TUNNEL_RESTART_MS',
    default: 1000,
    schema: number('MNEMO_TUNNEL_RESTART_MS', 'set e.g. 1000').refine((v) => v >= 10, {
      message: 'MNEMO_TUNNEL_RESTART_MS must be 10 or more milliseconds, e.g. 1000',
    }),
    meaning: 'first delay before restarting cloudflared (doubles to 30 s)',
  },
} satisfies Record<string, Setting>;
