// The part of oidc-provider (which ships no types) that mnemo's glue uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type Payload = Record<string, unknown>;

  /** What oidc-provider asks of a storage adapter, one instance a model name. */
  export interface Adapter {
    upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<Payload | undefined>;
    findByUserCode(userCode: string): Promise<Payload | undefined>;
    findByUid(uid: string): Promise<Payload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Grant {
    jti: string;
    accountId?: string;
    clientId?: string;
    exp?: number;
    iat?: number;
    resources?: Record<string, string>;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
    destroy(): Promise<void>;
  }

  export interface AccessToken {
    jti: string;
    exp?: number;
    aud?: string | string[];
    grantId?: string;
    clientId?: string;
    scope?: string;
    isExpired: boolean;
    save(): Promise<string>;
  }

  export interface Interaction {
    uid: string;
    exp: number;
    returnTo: string;
    params: Record<string, unknown>;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    result?: Record<string, unknown>;
    grantId?: string;
    session?: { accountId?: string };
    save(ttl: number): Promise<string>;
  }

  export interface ClientSchema {
    prototype: {
      redirectUris(this: ClientMetadata, uris?: string[], label?: string): void;
      scopes(this: ClientMetadata): void;
    };
  }

  export interface ClientMetadata {
    redirect_uris: string[];
    scope?: string | undefined;
    invalidate(message: string, code?: string): never;
  }

  export interface Client {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    proxy: boolean;
    /** Koa's app.keys: the cookie keys of the configuration. */
    keys?: string[];
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string, options?: { ignoreExpiration?: boolean }): Promise<Grant | undefined>;
    };
    AccessToken: {
      new (properties: Record<string, unknown>): AccessToken;
      find(id: string, options?: { ignoreExpiration?: boolean }): Promise<AccessToken | undefined>;
    };
    ResourceServer: new (
      identifier: string,
      info: Record<string, unknown>,
    ) => unknown;
    Interaction: {
      find(id: string): Promise<Interaction | undefined>;
    };
    Client: {
      find(id: string): Promise<Client | undefined>;
      Schema: ClientSchema;
    };
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    AccessDenied: new (description?: string) => Error;
  };

  export default Provider;
}
