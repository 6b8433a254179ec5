import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { curveSettings } from '../config/derived.js';
import { type Config, ConfigError } from '../config/index.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { ManifestFile, type ManifestServer } from '../gateway/manifest.js';
import type { Gateway } from '../gateway/proxy.js';
import { cloudflaredEnvironment, QuickTunnel } from '../gateway/tunnel.js';
import type { OAuthServer } from '../oauth/index.js';
import { readRegularFile } from '../platform/durable-file.js';
import { createServer } from '../server.js';
import { DEFAULT_NAMESPACE } from '../storage/engine.js';
import { tokenMatches } from '../transport/auth.js';
import { refuseOtherOrigins } from '../transport/callers.js';
import { hostName, isLoopbackAddress } from '../transport/hosts.js';
import { createHttpApp } from '../transport/http.js';
import { listen, type RunningHttp } from '../transport/listen.js';
import { parseTokenFile, type TokenGrant } from '../transport/tokens.js';
import { uiApi } from '../ui/api.js';
import { uiPage } from '../ui/page.js';
import { VERSION } from '../version.js';
import { type OpenedMemory, openMemory } from './memory.js';

export interface ServeAppDeps {
  logger: Logger;
  clock: () => number;
  /** Opens a Cloudflare quick tunnel to the server (`mnemo serve --tunnel`). */
  tunnel?: boolean;
  /** OAuth for claude.ai and ChatGPT at /connect/mcp (`--oauth`; MNEMO_OAUTH does the same). */
  oauth?: boolean;
  /** Told each public URL the tunnel gets, once gateway.json names it. */
  onTunnelUrl?(url: string): void;
  /**
   * The process's environment, of which cloudflared gets only what it needs
   * (cloudflaredEnvironment); without it cloudflared gets an empty one.
   */
  environment?: Readonly<Record<string, string | undefined>>;
}

export interface ServeApp {
  /**
   * Checks the settings, opens the memory and the gateway, listens, publishes gateway.json and
   * starts the tunnel; resolves with the local base URL once listening. Nothing stays open
   * when it rejects.
   */
  start(): Promise<{ url: string }>;
  /** Drains requests in flight (5 s at most), then closes everything start opened. */
  stop(): Promise<void>;
}

/** How long requests in flight may run on once a stop is asked for. */
const DRAIN_MS = 5_000;

/**
 * `mnemo serve`: the memory tools over streamable HTTP at /mcp, the upstreams of
 * MNEMO_GATEWAY_CONFIG at /mcp/<label>, gateway.json for remote agents, an optional tunnel.
 */
export function createServeApp(config: Config, deps: ServeAppDeps): ServeApp {
  const { logger } = deps;
  // The tunnel adds its host once it knows it.
  const allowedHosts = [...config.allowedHosts];
  const manifest = new ManifestFile(config.gatewayManifest, {
    logger,
    clock: () => deps.clock() * 1000,
  });
  let publicUrl = config.publicUrl;
  let opened: OpenedMemory | undefined;
  let gateway: Gateway | undefined;
  let running: RunningHttp | undefined;
  let tunnel: QuickTunnel | undefined;
  let oauth: OAuthServer | undefined;
  const oauthOn = config.oauth || deps.oauth === true;
  let stopping: Promise<void> | undefined;

  const publish = async (url: string, previous: string | undefined) => {
    if (previous !== undefined) await manifest.withdraw(previous);
    publicUrl = url;
    await manifest.publish(url, manifestEntries(url, config, gateway));
    logger.info({ manifest: config.gatewayManifest, publicUrl: url }, 'gateway.json written');
  };

  const closeAll = async () => {
    await tunnel?.stop();
    if (running && publicUrl !== undefined) await manifest.withdraw(publicUrl).catch(() => {});
    await running?.close(DRAIN_MS);
    await gateway?.close();
    await oauth?.close();
    await opened?.readiness.wait('store').catch(() => {});
    await opened?.close();
  };
  const shutDown = () => {
    stopping ??= closeAll();
    return stopping;
  };

  const startTunnel = (port: string) => {
    const quick = new QuickTunnel({
      command: config.cloudflared,
      env: cloudflaredEnvironment(deps.environment ?? {}),
      target: `http://127.0.0.1:${port}`,
      logger,
      restartMs: config.tunnelRestartMs,
      onUrl: async (url, previous) => {
        allowedHosts.push(hostName(url));
        await oauth?.setPublicUrl(url);
        await publish(url, previous ?? publicUrl);
        deps.onTunnelUrl?.(url);
      },
    });
    quick.start();
    return quick;
  };

  return {
    async start() {
      refuseUnsafe(config, deps.tunnel === true);
      if (oauthOn) refuseOAuthWithout(config, deps.tunnel === true);
      // A bad gateway config stops the start before anything is opened.
      const servers =
        config.gatewayConfig === undefined ? undefined : loadGatewayConfig(config.gatewayConfig);
      const tokens = config.tokensFile === undefined ? undefined : loadTokenFile(config.tokensFile);
      refuseSharedToken(config, tokens);
      const memory = openMemory(config, {
        logger,
        clock: deps.clock,
        watchVault: true,
        namespacesOnDemand: true,
      });
      opened = memory;
      // A database that cannot be used stops the start with its one line (the CLI exits 1).
      await memory.connected.catch(async (error: Error) => {
        opened = undefined;
        await memory.close();
        throw error;
      });
      memory.readiness
        .wait('store', { patient: true })
        .catch((error: Error) =>
          logger.error({ err: error.message }, 'cannot load the memory store'),
        );
      // The MCP client and the process tools only with upstreams: a start without pays nothing.
      const upstreams =
        servers === undefined
          ? undefined
          : (await import('../gateway/proxy.js')).createGateway({
              servers,
              logger,
              callTimeoutMs: config.gatewayTimeoutMs,
            });
      gateway = upstreams;
      // Signs save_memory's questions (2026-07-28): one key a namespace, the same for every
      // request's server, so the answer may come to another one; made anew at each start.
      const askKey = randomBytes(32);
      const askKeyOf = (namespace: string) =>
        createHmac('sha256', askKey).update(`mnemo ask: ${namespace}`).digest();
      if (oauthOn) {
        try {
          oauth = await startOAuth(config, deps, memory, tokens ?? []);
        } catch (error) {
          await shutDown();
          throw error;
        }
        if (publicUrl !== undefined) allowedHosts.push(hostName(publicUrl));
      }
      const app = createHttpApp({
        ...(oauth
          ? { oauth: { routes: oauth.routes, guard: oauth.guard, grantsApi: oauth.grantsApi } }
          : {}),
        ...(upstreams ? { gateway: upstreams } : {}),
        createMcpServer: (namespace) =>
          // JSON answers carry no notification: no subscriptions, no client log.
          createServer({
            memory: memory.memoryFor(namespace),
            logger,
            anchorFile: config.anchorFile,
            notifications: false,
            asking: { key: askKeyOf(namespace) },
          }),
        ui: {
          page: uiPage(),
          api: uiApi({
            memoryFor: (namespace) => memory.memoryFor(namespace),
            vaultDir: config.vaultDir,
            curve: curveSettings(config),
          }),
        },
        authToken: config.authToken,
        tokens,
        allowedHosts,
        bodyLimit: config.httpBodyLimit,
        rateLimitPerMinute: config.rateLimitPerMinute,
        logger,
        health: () => {
          const loaded = memory.readiness.state().store === 'ready';
          // /health asks for no token, so it counts only what a caller without one may read: the
          // default namespace of a server without tokens. Behind a token it counts nothing (a
          // token's own namespace is counted by memory_stats). On PostgreSQL, once this replica
          // holds it: before a request loaded it, null (not counted), never a 0 it does not know.
          const counted = tokens === undefined && config.authToken === undefined;
          const held = loaded && memory.holds(DEFAULT_NAMESPACE);
          return {
            status: 'ok',
            version: VERSION,
            store: loaded ? 'ready' : 'loading',
            ...(counted
              ? { memories: held ? memory.storeOf(DEFAULT_NAMESPACE).memories.size : null }
              : {}),
            upstreams: upstreams?.health() ?? [],
            // On PostgreSQL: how long the other replicas' writes take to be read here.
            ...(config.databaseUrl ? { replication_lag: memory.replicationLag() } : {}),
          };
        },
      });
      try {
        running = await listen(app, config.httpHost, config.httpPort);
      } catch (error) {
        await shutDown();
        throw listenError(config, error as NodeJS.ErrnoException);
      }
      const url = running.url;
      logger.info({ url, auth: config.authToken !== undefined }, 'mnemo serve listening');
      if (config.namespace !== DEFAULT_NAMESPACE) {
        // Set for stdio and the commands, perhaps by a shared environment: say it is not used.
        logger.warn(
          { namespace: config.namespace },
          'MNEMO_NAMESPACE is not used by mnemo serve: each request gets its namespace from its token (MNEMO_TOKENS); without a token it is default',
        );
      }
      try {
        if (publicUrl !== undefined) await publish(publicUrl, undefined);
        if (deps.tunnel) tunnel = startTunnel(new URL(url).port);
      } catch (error) {
        await shutDown();
        throw error;
      }
      return { url };
    },
    stop() {
      if (!stopping) logger.info('stopping: draining requests in flight');
      return shutDown();
    },
  };
}

/**
 * OAuth answers at the public URL (its issuer, which clients check), and consent is proven with
 * a token: without either it cannot work, so the start stops saying which to set.
 */
function refuseOAuthWithout(config: Config, withTunnel: boolean): void {
  if (config.publicUrl === undefined && !withTunnel) {
    throw new ConfigError(
      'OAuth (MNEMO_OAUTH or --oauth) needs the public URL clients reach: set MNEMO_PUBLIC_URL (e.g. https://mnemo.example.com) or start with --tunnel',
    );
  }
  if (config.authToken === undefined && config.tokensFile === undefined) {
    throw new ConfigError(
      'OAuth (MNEMO_OAUTH or --oauth) needs a token the person proves consent with: set MNEMO_AUTH_TOKEN (e.g. to the output of openssl rand -hex 32)',
    );
  }
}

/** The OAuth server over the memory's storage (loaded only when OAuth is on). */
async function startOAuth(
  config: Config,
  deps: ServeAppDeps,
  memory: OpenedMemory,
  tokens: readonly TokenGrant[],
): Promise<OAuthServer> {
  const [{ createOAuth }, { openOAuthStore }] = await Promise.all([
    import('../oauth/index.js'),
    import('../oauth/open-store.js'),
  ]);
  const oauth = createOAuth({
    store: openOAuthStore(config, deps.clock),
    clock: deps.clock,
    logger: deps.logger,
    authToken: config.authToken,
    tokens,
    // Every namespace of the store: a replica on PostgreSQL holds only those asked for lately.
    namespaces: async () =>
      [
        ...new Set([
          DEFAULT_NAMESPACE,
          ...tokens.flatMap((grant) => grant.namespaces),
          ...(await memory.storedNamespaces()),
        ]),
      ].sort(),
    sameOrigin: refuseOtherOrigins,
  });
  if (config.publicUrl !== undefined) await oauth.setPublicUrl(config.publicUrl);
  return oauth;
}

/** A public tunnel, or an address other machines reach, only behind a token. */
function refuseUnsafe(config: Config, withTunnel: boolean): void {
  const noToken = config.authToken === undefined && config.tokensFile === undefined;
  if (withTunnel && noToken) {
    throw new ConfigError(
      'refusing to open a public tunnel without a token: set MNEMO_AUTH_TOKEN (e.g. to the output of openssl rand -hex 32) or MNEMO_TOKENS',
    );
  }
  if (!isLoopbackAddress(config.httpHost) && noToken) {
    throw new ConfigError(
      `refusing to listen on ${config.httpHost} without a token: set MNEMO_AUTH_TOKEN (e.g. to the output of openssl rand -hex 32) or MNEMO_TOKENS, or listen on 127.0.0.1 (MNEMO_HTTP_HOST)`,
    );
  }
}

/**
 * A token both MNEMO_AUTH_TOKEN and a line of the token file name would hold the default
 * namespace only (MNEMO_AUTH_TOKEN's meaning wins), never the line's: refused, naming neither.
 */
function refuseSharedToken(config: Config, tokens: readonly TokenGrant[] | undefined): void {
  const global = config.authToken;
  if (global === undefined || tokens === undefined) return;
  if (tokens.some((grant) => tokenMatches(grant.token, global))) {
    throw new ConfigError(
      `a token of MNEMO_TOKENS (${config.tokensFile}) is MNEMO_AUTH_TOKEN too, which holds the default namespace only: give that line a token of its own (openssl rand -hex 32), or add default to its namespaces and unset MNEMO_AUTH_TOKEN`,
    );
  }
}

/** A token file is a few lines a token: anything larger is not one. */
const MAX_TOKEN_FILE = 1 << 20;

/**
 * The token file: read once at the start; a file that cannot be read says so and how to fix it.
 * Only a regular file: a FIFO would hang the start, a device is no file of tokens.
 */
function loadTokenFile(file: string): TokenGrant[] {
  let text: string;
  try {
    text = readRegularFile(file, MAX_TOKEN_FILE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'ENOTREG'
        ? 'which is not a regular file (a FIFO, a device or a folder)'
        : code === 'EFBIG'
          ? `which is larger than ${MAX_TOKEN_FILE} bytes`
          : `which cannot be read (${code})`;
    throw new ConfigError(
      `MNEMO_TOKENS names ${file}, ${why}: fix the path or its permissions, or unset MNEMO_TOKENS`,
    );
  }
  return parseTokenFile(text, file);
}

function listenError(config: Config, error: NodeJS.ErrnoException): ConfigError {
  return new ConfigError(
    error.code === 'EADDRINUSE'
      ? `port ${config.httpPort} on ${config.httpHost} is in use: stop what runs there, or pick another with --port or MNEMO_HTTP_PORT`
      : `cannot listen on ${config.httpHost}:${config.httpPort}: ${error.message}`,
  );
}

/** What a remote agent needs to reach mnemo and each upstream at `publicUrl`. */
function manifestEntries(
  publicUrl: string,
  config: Config,
  gateway: Gateway | undefined,
): ManifestServer[] {
  const bearer = (token: string | undefined): Record<string, string> =>
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  return [
    { label: 'mnemo', url: `${publicUrl}/mcp`, headers: bearer(config.authToken) },
    ...(gateway?.labels() ?? []).map((label) => ({
      label,
      url: `${publicUrl}/mcp/${label}`,
      headers: bearer(gateway?.tokenFor(label) ?? config.authToken),
    })),
  ];
}
