// The consent API the page at /ui/consent calls (JSON, its own origin only):
//   GET  /oauth/interaction/:uid  → { client: { id, name, redirect_host }, namespaces, resource }
//        (namespaces: what the token in Authorization may give; none without one: whoever starts
//        a flow must not learn which namespaces the memory holds)
//   POST /oauth/interaction/:uid  { token, decision: 'allow'|'deny', namespaces: [...] }
//                                 → { redirect } (the page goes there: back into the flow)
// The person proves it is them with the admin token (MNEMO_AUTH_TOKEN), or a token of the token
// file for its own namespaces; the grant gives exactly the namespaces chosen. The answer is taken
// only from the browser that started the authorization (its consent cookie, `bindConsent`):
// a stranger who starts a flow and sends the person its consent link gets nothing from it.
import { createHmac } from 'node:crypto';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Provider } from 'oidc-provider';
import { isNamespace } from '../storage/engine.js';
import { presentedToken, tokenMatches } from '../transport/auth.js';
import { HttpError } from '../transport/http-error.js';
import { jsonBody } from '../transport/json-body.js';
import type { TokenGrant } from '../transport/tokens.js';
import { namespaceScope } from './grants.js';
import { ACCOUNT, RESOURCE_SCOPE } from './provider.js';

const OIDC_SCOPES = new Set(['openid', 'offline_access']);

export interface ConsentOptions {
  provider(): Provider;
  resource(): string;
  clock: () => number;
  /** MNEMO_AUTH_TOKEN: may give any namespace. */
  authToken: string | undefined;
  /** The token file's tokens: each may give its own namespaces. */
  tokens: readonly TokenGrant[];
  /** The namespaces the page offers. */
  namespaces(): string[] | Promise<string[]>;
  /** Refuses a call from another origin (the page API's rule). */
  sameOrigin(req: express.Request): void;
}

/** The cookie that binds a consent request to the browser that started it. */
export const CONSENT_COOKIE = 'mnemo_consent';

/** The consent cookie's value for `uid`: an HMAC under the provider's cookie key. */
function bindingOf(provider: Provider, uid: string): string | undefined {
  const key = provider.keys?.[0];
  if (key === undefined) return undefined;
  return createHmac('sha256', key).update(`mnemo consent ${uid}`).digest('base64url');
}

/**
 * Gives the browser that starts an authorization the consent cookie of its interaction, sent
 * only to that interaction's consent API; other browsers cannot see or answer it.
 */
export function bindConsent(provider: Provider): void {
  provider.on('interaction.started', (...args: unknown[]) => {
    const ctx = args[0] as {
      secure: boolean;
      oidc: { entities: { Interaction?: { uid: string; exp: number } } };
      cookies: { set(name: string, value: string, options: Record<string, unknown>): void };
    };
    const interaction = ctx.oidc.entities.Interaction;
    const value = interaction && bindingOf(provider, interaction.uid);
    if (!interaction || value === undefined) return;
    ctx.cookies.set(CONSENT_COOKIE, value, {
      path: `/oauth/interaction/${encodeURIComponent(interaction.uid)}`,
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.secure,
      signed: false,
      overwrite: true,
    });
  });
}

/** The value of cookie `name` in a Cookie header, the first if repeated. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

const gone = () =>
  new HttpError(
    404,
    'no such consent request: it was answered or has expired; start again from the app',
  );

/**
 * The namespaces the presented token may give: all (MNEMO_AUTH_TOKEN) or its own (the token
 * file); undefined for a wrong token. Every token is compared, so timing tells nothing.
 */
function mayGive(
  presented: string | undefined,
  options: ConsentOptions,
): 'any' | readonly string[] | undefined {
  const admin = options.authToken !== undefined && tokenMatches(presented, options.authToken);
  const own = options.tokens.filter((grant) => tokenMatches(presented, grant.token));
  if (admin) return 'any';
  return own[0]?.namespaces;
}

export function consentApi(options: ConsentOptions): express.Router {
  const router = express.Router();
  router.use((req, res, next) => {
    options.sameOrigin(req);
    res.set('Cache-Control', 'no-store');
    next();
  });

  // Another browser's request answers as one that does not exist: its uid tells nothing.
  const interactionOf = async (req: express.Request) => {
    const uid = String(req.params.uid);
    const provider = options.provider();
    const expected = bindingOf(provider, uid);
    const presented = cookieOf(req.headers.cookie, CONSENT_COOKIE);
    if (expected === undefined || !tokenMatches(presented, expected)) throw gone();
    const interaction = await provider.Interaction.find(uid);
    if (!interaction || interaction.result !== undefined) throw gone();
    return interaction;
  };

  // A token is 16 characters or more: guessing one is out of reach, but each try costs a hash.
  const tries = rateLimit({
    windowMs: 60_000,
    limit: 30,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: (req) => req.method === 'GET' && req.headers.authorization === undefined,
    handler: () => {
      throw new HttpError(429, 'too many consent answers a minute: wait, then try again');
    },
  });

  router.get('/:uid', tries, async (req, res) => {
    const interaction = await interactionOf(req);
    const allowed = mayGive(presentedToken(req.headers.authorization), options);
    const clientId = String(interaction.params.client_id ?? '');
    const client = await options.provider().Client.find(clientId);
    if (!client) throw gone();
    const redirect = URL.parse(String(interaction.params.redirect_uri ?? ''));
    res.json({
      client: {
        id: clientId,
        name: client.clientName ?? null,
        redirect_host: redirect?.host ?? null,
      },
      namespaces:
        allowed === undefined ? [] : allowed === 'any' ? await options.namespaces() : [...allowed],
      resource: options.resource(),
    });
  });

  router.post(
    '/:uid',
    tries,
    (req, _res, next) => {
      if (!req.is('application/json')) {
        throw new HttpError(415, 'send the body as JSON (Content-Type: application/json)');
      }
      next();
    },
    jsonBody('16kb'),
    async (req, res) => {
      const body = (req.body ?? {}) as {
        token?: unknown;
        decision?: unknown;
        namespaces?: unknown;
      };
      const presented = typeof body.token === 'string' ? presentedToken(body.token) : undefined;
      const allowed = mayGive(presented, options);
      if (allowed === undefined) {
        throw new HttpError(401, "wrong access token: give the server's token (MNEMO_AUTH_TOKEN)");
      }
      if (body.decision !== 'allow' && body.decision !== 'deny') {
        throw new HttpError(400, 'decision must be "allow" or "deny"');
      }
      const interaction = await interactionOf(req);
      const ttl = Math.max(1, interaction.exp - options.clock());
      if (body.decision === 'deny') {
        interaction.result = {
          error: 'access_denied',
          error_description: 'the person declined to give this client access to their memory',
        };
        await interaction.save(ttl);
        res.json({ redirect: interaction.returnTo });
        return;
      }
      const chosen = Array.isArray(body.namespaces) ? [...new Set(body.namespaces)] : [];
      if (chosen.length === 0 || chosen.length > 64 || !chosen.every(isNamespace)) {
        throw new HttpError(
          400,
          'choose one or more namespaces (names of 1 to 64 of a-z, 0-9, _ and -) to give this client',
        );
      }
      if (allowed !== 'any' && !chosen.every((n) => allowed.includes(n))) {
        throw new HttpError(
          403,
          'this token does not hold every namespace chosen: choose among its own',
        );
      }
      const provider = options.provider();
      const clientId = String(interaction.params.client_id ?? '');
      const grant = new provider.Grant({ accountId: ACCOUNT, clientId });
      // What the client asked for (the first prompt is login, whose details name no scope): the
      // OIDC scopes it asked, the resource's own scope, and the namespaces chosen.
      const asked = String(interaction.params.scope ?? '').split(' ');
      const oidc = asked.filter((scope) => OIDC_SCOPES.has(scope));
      if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
      grant.addResourceScope(
        options.resource(),
        [RESOURCE_SCOPE, ...(chosen as string[]).map(namespaceScope)].join(' '),
      );
      const grantId = await grant.save();
      interaction.result = {
        login: { accountId: ACCOUNT, remember: false },
        consent: { grantId },
      };
      await interaction.save(ttl);
      res.json({ redirect: interaction.returnTo });
    },
  );
  // A uid whose percent-encoding does not decode (`/oauth/interaction/%zz`): express's URIError,
  // a 500 below; it names no consent request.
  router.use(
    (error: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
      next(error instanceof URIError ? gone() : error);
    },
  );
  return router;
}
