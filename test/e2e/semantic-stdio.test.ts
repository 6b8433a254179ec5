import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support.js';
import { type CliClient, makeTempDir, removeDir, startClient } from './helpers.js';

interface Cluster {
  id: string;
  memory_ids: string[];
  cohesion: number;
  suggested_action: string;
}

/** The built CLI with the static model it ships, offline, over a real stdio session. */
describe('semantic recall, clustering and consolidation over stdio (static model)', () => {
  let dir: string;
  let c: CliClient;
  before(async () => {
    dir = makeTempDir();
    c = await startClient(dir, { env: { MNEMO_EMBEDDINGS: 'static', MNEMO_NOW: '2026-01-01' } });
    await eventually(
      async () => {
        const stats = await c.ok<{ embeddings: { state: string } }>('memory_stats');
        return stats.embeddings.state !== 'loading';
      },
      'the static model to load',
      30_000,
    );
  });
  after(async () => {
    await c.close();
    removeDir(dir);
  });

  it('loads the shipped model with no network', async () => {
    const stats = await c.ok<{ embeddings: { state: string; model: string } }>('memory_stats');
    assert.equal(stats.embeddings.state, 'ready');
    assert.match(stats.embeddings.model, /^mnemo\/static-glove-100d/);
  });

  it('finds a kitten sleeping on a rug by a search for a cat resting on the carpet', async () => {
    const kitten = await c.ok<{ memory_id: string }>('save_memory', {
      content: 'A kitten was sleeping on the rug by the window.',
    });
    await c.ok('save_memory', { content: 'The quarterly tax filing deadline is in April.' });
    await c.ok('save_memory', { content: 'Deploys run from the main branch every night.' });
    const found = await c.ok<{ results: { memory_id: string }[] }>('search_memory', {
      query: 'cat resting on the carpet',
    });
    assert.equal(found.results[0]?.memory_id, kitten.memory_id);
    // No word of the query is in the memory: the match is by meaning alone.
    assert.ok(found.results.length >= 1);
  });

  it('lists a near-duplicate under similar_to and keeps both', async () => {
    const first = await c.ok<{ memory_id: string }>('save_memory', {
      content: 'The staging database password rotates every thirty days.',
    });
    const second = await c.ok<{
      memory_id: string;
      deduplicated: boolean;
      similar_to: { memory_id: string; similarity: number }[];
    }>('save_memory', {
      content: 'Staging database passwords are rotated every thirty days.',
    });
    assert.equal(second.deduplicated, false);
    assert.notEqual(second.memory_id, first.memory_id);
    assert.deepEqual(
      second.similar_to.map((s) => s.memory_id),
      [first.memory_id],
    );
    const again = await c.ok<{ memory_id: string; deduplicated: boolean }>('save_memory', {
      content: '  the staging database password ROTATES every thirty days. ',
    });
    assert.equal(again.deduplicated, true);
    assert.equal(again.memory_id, first.memory_id);
  });

  it('clusters the near-duplicates and consolidates the cluster it returned', async () => {
    // Taken as notifications, not through request's onprogress: the SDK drops a progress
    // notification that arrives in the same read as the answer.
    const progress: number[] = [];
    c.client.setNotificationHandler('notifications/progress', (n) => {
      if (n.params.progressToken === 'p1') progress.push(n.params.progress);
    });
    const clustered = await c.client.request({
      method: 'tools/call',
      params: { name: 'cluster_memories', arguments: {}, _meta: { progressToken: 'p1' } },
    });
    assert.ok(progress.length > 0, 'progress notifications for the progressToken');
    assert.ok(!clustered.isError, JSON.stringify(clustered.content));
    const { clusters } = clustered.structuredContent as { clusters: Cluster[] };
    const cluster = clusters.find((x) => x.memory_ids.length === 2);
    assert.ok(cluster, `a cluster of the two password memories in ${JSON.stringify(clusters)}`);
    assert.match(cluster.id, /^c-[0-9a-f]{12}$/);

    // The same members give the same id on a second call.
    const again = await c.ok<{ clusters: Cluster[] }>('cluster_memories');
    assert.ok(again.clusters.some((x) => x.id === cluster.id));

    const preview = await c.ok<{
      consolidations: { memory_id: null; merged: { content: string } }[];
    }>('consolidate_memories', { cluster_id: cluster.id });
    assert.equal(preview.consolidations[0]?.memory_id, null);
    const applied = await c.ok<{
      consolidations: { memory_id: string; archived_ids: string[]; relation_ids: string[] }[];
    }>('consolidate_memories', { cluster_id: cluster.id, mode: 'apply' });
    const done = applied.consolidations[0];
    assert.ok(done?.memory_id);
    assert.deepEqual([...done.archived_ids].sort(), [...cluster.memory_ids].sort());
    assert.equal(done.relation_ids.length, 2);

    const opened = await c.ok<{
      memories: { id: string; status: string; content: string; use_count: number }[];
    }>('open_memories', { memory_ids: [done.memory_id, ...cluster.memory_ids] });
    const [merged, ...members] = opened.memories;
    assert.equal(merged?.status, 'active');
    assert.match(merged?.content ?? '', /staging database password/i);
    assert.deepEqual(
      members.map((m) => m.status),
      ['archived', 'archived'],
    );
    // The id is gone once its members are archived: acting on it again is a clear error.
    const stale = await c.call('consolidate_memories', { cluster_id: cluster.id, mode: 'apply' });
    assert.equal(stale.isError, true);
    assert.match(JSON.stringify(stale.content), /call cluster_memories again/);
  });
});
