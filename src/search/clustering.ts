// Groups memories whose embeddings are close, for cluster_memories and consolidate_memories.
// Pure: no I/O, no clock, no randomness; the same input gives the same clusters.

import { createHash } from 'node:crypto';

export interface ClusterOptions {
  /** Cosine at or above which two memories are linked (0.83 by default). */
  threshold: number;
  /** No cluster grows beyond this many members (12 by default). */
  maxClusterSize: number;
}

export const DEFAULT_CLUSTER_OPTIONS: Readonly<ClusterOptions> = {
  threshold: 0.83,
  maxClusterSize: 12,
};

export type SuggestedAction = 'auto-merge' | 'review' | 'keep-apart';

export interface Cluster {
  id: string;
  memory_ids: string[];
  cohesion: number;
  suggested_action: SuggestedAction;
}

export const AUTO_MERGE_COHESION = 0.9;
export const REVIEW_COHESION = 0.75;

/** What to do with a cluster of this cohesion: merge it unasked, show it to someone, or leave it. */
export function suggestedAction(cohesion: number): SuggestedAction {
  if (cohesion >= AUTO_MERGE_COHESION) return 'auto-merge';
  if (cohesion >= REVIEW_COHESION) return 'review';
  return 'keep-apart';
}

/**
 * `c-` and 12 hex digits of the sha256 of the sorted ids joined by newlines: the same members give
 * the same id whatever their order, so a preview's cluster id can be passed back to apply it.
 */
export function clusterId(memoryIds: readonly string[]): string {
  const sorted = [...memoryIds].sort(compareStrings);
  return `c-${createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 12)}`;
}

/**
 * Single-linkage clusters over cosine similarity (the dot product: vectors are unit length), with
 * a cap on size. Two memories are linked when their cosine is >= `threshold`, compared as computed
 * from the float32 components, with no tolerance. Links are taken strongest first (Kruskal, over a
 * union-find), and a link whose union would make a cluster larger than `maxClusterSize` is skipped:
 * the closest pairs come together first, and a long chain of near neighbours cannot swallow
 * everything into one cluster. Every member of a returned cluster so has a link >= `threshold` to
 * another member, but two members need not be linked to each other directly.
 *
 * Only clusters of two or more are returned: memory_ids sorted, clusters by cohesion (the mean
 * pairwise cosine of the members, to 4 digits) descending, then by id. Ties between equally strong
 * links are broken by memory id, so the result does not depend on the order of `items`.
 *
 * The pass over all pairs is O(n^2 d); `onProgress(done, total)` is called after about every 1% of
 * the n rows (row i compares item i with the n - i - 1 items after it), and once at the end.
 */
export function clusterVectors(
  items: readonly { id: string; vector: Float32Array }[],
  options: ClusterOptions,
  onProgress?: (done: number, total: number) => void,
): Cluster[] {
  const { threshold, maxClusterSize } = options;
  if (!Number.isFinite(threshold)) {
    throw new RangeError(`threshold must be a finite number, got ${threshold}`);
  }
  if (!Number.isInteger(maxClusterSize) || maxClusterSize < 2) {
    throw new RangeError(`maxClusterSize must be an integer >= 2, got ${maxClusterSize}`);
  }
  // Sorting by id first makes index order id order, which settles every tie the same way.
  const sorted = [...items].sort((a, b) => compareStrings(a.id, b.id));
  const n = sorted.length;
  const dim = sorted[0]?.vector.length ?? 0;
  const data = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const item = sorted[i] as { id: string; vector: Float32Array };
    if (i > 0 && item.id === sorted[i - 1]?.id) {
      throw new Error(`memory ${item.id} is listed twice; pass each memory once`);
    }
    if (item.vector.length !== dim) {
      throw new Error(
        `memory ${item.id} has a ${item.vector.length}-d vector, others ${dim}-d; embed all with one model`,
      );
    }
    data.set(item.vector, i * dim);
  }

  const edges = linksAtLeast(data, n, dim, threshold, onProgress);

  const parent = new Uint32Array(n);
  const size = new Uint32Array(n).fill(1);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number): number => {
    let root = x;
    while (parent[root] !== root) root = parent[root] as number;
    while (parent[x] !== root) {
      const next = parent[x] as number;
      parent[x] = root;
      x = next;
    }
    return root;
  };
  for (const e of edges.strongestFirst()) {
    const ra = find(edges.from[e] as number);
    const rb = find(edges.to[e] as number);
    if (ra === rb) continue;
    const merged = (size[ra] as number) + (size[rb] as number);
    if (merged > maxClusterSize) continue;
    const [big, small] = (size[ra] as number) >= (size[rb] as number) ? [ra, rb] : [rb, ra];
    parent[small] = big;
    size[big] = merged;
  }

  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = find(i);
    if ((size[root] as number) < 2) continue;
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [i]);
  }
  const clusters: Cluster[] = [];
  for (const members of groups.values()) {
    let sum = 0;
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        sum += dot(data, (members[x] as number) * dim, (members[y] as number) * dim, dim);
      }
    }
    const pairs = (members.length * (members.length - 1)) / 2;
    const cohesion = Math.round((sum / pairs) * 1e4) / 1e4;
    // Members are in index order, which is id order.
    const memoryIds = members.map((i) => (sorted[i] as { id: string }).id);
    clusters.push({
      id: clusterId(memoryIds),
      memory_ids: memoryIds,
      cohesion,
      suggested_action: suggestedAction(cohesion),
    });
  }
  return clusters.sort((a, b) => b.cohesion - a.cohesion || compareStrings(a.id, b.id));
}

/** Code-unit order, the same on every machine (localeCompare is not). */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every pair (i < j) with cosine >= threshold. Rows go four at a time, so that each vector j is
 * read once for four dot products: about a third faster than one row at a time.
 */
function linksAtLeast(
  data: Float32Array,
  n: number,
  dim: number,
  threshold: number,
  onProgress?: (done: number, total: number) => void,
): EdgeList {
  const edges = new EdgeList();
  const step = Math.max(1, Math.ceil(n / 100));
  let nextReport = step;
  let i = 0;
  while (i < n) {
    const rows = Math.min(4, n - i);
    // Pairs inside the block, then the block against every later vector.
    for (let x = i; x < i + rows; x++) {
      for (let y = x + 1; y < i + rows; y++) {
        const sim = dot(data, x * dim, y * dim, dim);
        if (sim >= threshold) edges.push(x, y, sim);
      }
    }
    if (rows === 4) {
      const a0 = i * dim;
      const a1 = a0 + dim;
      const a2 = a1 + dim;
      const a3 = a2 + dim;
      for (let j = i + 4; j < n; j++) {
        const b = j * dim;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let k = 0; k < dim; k++) {
          const v = data[b + k] as number;
          s0 += (data[a0 + k] as number) * v;
          s1 += (data[a1 + k] as number) * v;
          s2 += (data[a2 + k] as number) * v;
          s3 += (data[a3 + k] as number) * v;
        }
        if (s0 >= threshold) edges.push(i, j, s0);
        if (s1 >= threshold) edges.push(i + 1, j, s1);
        if (s2 >= threshold) edges.push(i + 2, j, s2);
        if (s3 >= threshold) edges.push(i + 3, j, s3);
      }
    }
    i += rows;
    if (onProgress && (i >= nextReport || i === n)) {
      onProgress(i, n);
      while (nextReport <= i) nextReport += step;
    }
  }
  return edges;
}

/** The dot product of data[a..a+dim) and data[b..b+dim), summed in the same order as above. */
function dot(data: Float32Array, a: number, b: number, dim: number): number {
  let s = 0;
  for (let k = 0; k < dim; k++) s += (data[a + k] as number) * (data[b + k] as number);
  return s;
}

/** Links above the threshold, in growable typed arrays: a low threshold can make millions. */
class EdgeList {
  from = new Uint32Array(64);
  to = new Uint32Array(64);
  sim = new Float64Array(64);
  length = 0;

  push(from: number, to: number, sim: number): void {
    if (this.length === this.from.length) {
      const capacity = this.from.length * 2;
      const from2 = new Uint32Array(capacity);
      const to2 = new Uint32Array(capacity);
      const sim2 = new Float64Array(capacity);
      from2.set(this.from);
      to2.set(this.to);
      sim2.set(this.sim);
      this.from = from2;
      this.to = to2;
      this.sim = sim2;
    }
    this.from[this.length] = from;
    this.to[this.length] = to;
    this.sim[this.length] = sim;
    this.length++;
  }

  /** Edge indexes by similarity descending, then by the pair's indexes. */
  strongestFirst(): Uint32Array {
    const order = new Uint32Array(this.length);
    for (let e = 0; e < this.length; e++) order[e] = e;
    const { from, to, sim } = this;
    return order.sort(
      (x, y) =>
        (sim[y] as number) - (sim[x] as number) ||
        (from[x] as number) - (from[y] as number) ||
        (to[x] as number) - (to[y] as number),
    );
  }
}
