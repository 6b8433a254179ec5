// oidc-provider's storage adapter over an OAuthStore: every entry keyed by the hash of its id,
// the id (`jti`: the code, the token, the session cookie) left out of what is stored and put back
// from the caller's id when read. A registered client lives a day unless a grant is made for
// it, then as long as its grants: a flood of registrations cannot fill the store for good.
import type { Adapter, Payload } from 'oidc-provider';
import { keyOf, type OAuthStore, type StoredEntry } from './store.js';

/** How long a client registered without a grant is kept (seconds). */
export const UNUSED_CLIENT_TTL = 86_400;

export class StoreAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly store: OAuthStore,
    private readonly clock: () => number,
  ) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const now = this.clock();
    const { jti: _id, ...kept } = payload;
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : undefined;
    const uid = typeof payload.uid === 'string' ? payload.uid : undefined;
    const expiresAt =
      expiresIn !== undefined
        ? now + expiresIn
        : this.model === 'Client'
          ? now + UNUSED_CLIENT_TTL
          : undefined;
    const entry: StoredEntry = {
      model: this.model,
      payload: kept,
      expiresAt,
      grantKey: grantId === undefined ? undefined : keyOf('Grant', grantId),
      uidKey: uid === undefined ? undefined : keyOf(this.model, uid),
    };
    if (this.model === 'Grant') {
      const previous = await this.store.get(keyOf('Grant', id));
      entry.usedAt = previous?.usedAt;
    }
    await this.store.put(keyOf(this.model, id), entry);
    // A client with a grant is kept as long as the grant.
    if (this.model === 'Grant' && typeof payload.clientId === 'string') {
      await this.store.touch(keyOf('Client', payload.clientId), {
        expiresAt: expiresAt ?? now + UNUSED_CLIENT_TTL,
      });
    }
  }

  async find(id: string): Promise<Payload | undefined> {
    return this.payloadOf(id, await this.store.get(keyOf(this.model, id)));
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const entry = await this.store.findByUid(keyOf(this.model, uid));
    // The id of a session found by its uid is in no argument: sessions keep theirs in `jti`
    // nowhere else, so a session found this way is read as its payload alone.
    return (
      entry && { ...entry.payload, ...(entry.consumedAt ? { consumed: entry.consumedAt } : {}) }
    );
  }

  /** No device flow: there are no user codes. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    await this.store.consume(keyOf(this.model, id), this.clock());
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'Grant') await this.store.removeGrant(keyOf('Grant', id));
    else await this.store.remove(keyOf(this.model, id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.store.removeGrant(keyOf('Grant', grantId));
  }

  private payloadOf(id: string, entry: StoredEntry | undefined): Payload | undefined {
    if (!entry) return undefined;
    return {
      ...entry.payload,
      jti: id,
      ...(entry.consumedAt !== undefined ? { consumed: entry.consumedAt } : {}),
    };
  }
}
