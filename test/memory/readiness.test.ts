import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReadiness } from '../../src/memory/readiness.js';
import type { EmbeddingsStatus } from '../../src/search/semantic-index.js';

function deferred() {
  let resolve: () => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

function parts(vaultWatched: boolean) {
  const round = deferred();
  const loaded = deferred();
  const vault = deferred();
  const notes = deferred();
  const model = deferred();
  let embeddings: EmbeddingsStatus['state'] = 'loading';
  const readiness = createReadiness({
    engine: { ready: round.promise, loaded: loaded.promise },
    vault: vaultWatched ? vault.promise : undefined,
    notes: { ready: notes.promise },
    semantic: {
      ready: model.promise,
      status: () => ({ state: embeddings, model: null, vectors: 0, backlog: 0 }),
    },
  });
  const modelLoaded = () => {
    embeddings = 'ready';
    model.resolve();
  };
  return { readiness, round, loaded, vault, notes, modelLoaded };
}

describe('readiness: one answer to "can this part be used yet"', () => {
  it('store: a call is told the store is busy; a patient one waits for the load', async () => {
    const p = parts(true);
    const call = p.readiness.wait('store');
    const patient = p.readiness.wait('store', { patient: true });
    p.round.reject(new Error('the data dir is busy'));
    await assert.rejects(call, /busy/);
    assert.equal(await settled(patient), false);
    assert.equal(p.readiness.state().store, 'loading');
    p.loaded.resolve();
    await patient;
    assert.equal(p.readiness.state().store, 'ready');
  });

  it('store: a folder that cannot be read is failed', async () => {
    const p = parts(false);
    p.loaded.reject(new Error('EACCES'));
    await assert.rejects(p.readiness.wait('store', { patient: true }), /EACCES/);
    assert.equal(p.readiness.state().store, 'failed');
  });

  it('vault: the notes read and reconciled, and any scan under way; off when not watched', async () => {
    const p = parts(true);
    assert.equal(p.readiness.state().vault, 'indexing');
    const waiting = p.readiness.wait('vault');
    p.vault.resolve();
    assert.equal(await settled(waiting), false, 'a scan is still under way');
    p.notes.resolve();
    await waiting;
    assert.equal(p.readiness.state().vault, 'ready');
    const off = parts(false);
    off.notes.resolve();
    assert.equal(off.readiness.state().vault, 'off');
    await off.readiness.wait('vault');
  });

  it('embeddings: the model loaded, as memory_stats says it', async () => {
    const p = parts(false);
    const waiting = p.readiness.wait('embeddings');
    assert.equal(p.readiness.state().embeddings, 'loading');
    p.modelLoaded();
    await waiting;
    assert.equal(p.readiness.state().embeddings, 'ready');
  });
});
