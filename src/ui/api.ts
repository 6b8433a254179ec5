// The JSON the web page reads and the actions it asks for, under /ui/api. Each route is a few
// lines over a use case of the memory; auth, the namespace and the origin are checked before
// (src/transport/http.ts), and errors go to the one HTTP error mapper (http-error.ts).
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { settleConflictInput } from '../contract/settle-conflict.js';
import { BROWSE_SORTS, type BrowseSort } from '../memory/browsing.js';
import type { Memory } from '../memory/index.js';
import { oneLine, preview } from '../memory/present.js';
import { UserError } from '../platform/errors.js';
import { MEMORY_STATUSES, type MemoryRecord, type MemoryStatus } from '../storage/records.js';
import { HttpError } from '../transport/http-error.js';
import { requestState } from '../transport/request-state.js';
import { type CurveSettings, PROJECTED_DAYS, scoreCurve, thresholdsOf } from './curve.js';

export interface UiApiDeps {
  /** The use cases of namespace `name` (OpenedMemory.memoryFor). */
  memoryFor(name: string): Memory;
  curve: CurveSettings;
  /** The vault's folder, whose name is in a promoted memory's `obsidian://` link; none without a vault. */
  vaultDir?: string | undefined;
}

const PAGE_SIZE = 50;
const ACTION_NAMES = 'touch, archive, restore, delete or promote';
const SETTLE_BODY =
  "the body must be a JSON object (Content-Type: application/json), settle_conflict's input: memory_id, other_id, keep (first, second, both or merge)";
const GC_BODY =
  'the body must be a JSON object (Content-Type: application/json) whose archive, if given, is true (archive the memories) or false (forget them)';
/** The most rows a gc preview or a queue sends: the counts say how many there are in all. */
const SHOWN = 500;
const LIST_PREVIEW = 240;
const OVERVIEW_DAYS = 30;
/** Memories saved around the one a page shows, a side: its session, as open_memories gives it. */
const NEIGHBOURS_SHOWN = 3;

/** What each button of one memory does, by the last word of its route. */
const ACTIONS: Record<string, (memory: Memory, id: string) => Promise<unknown>> = {
  touch: (m, id) => m.writing.touch({ memory_id: id }),
  archive: (m, id) => m.forgetting.archive({ memory_id: id }),
  restore: (m, id) => m.forgetting.restore({ memory_id: id }),
  delete: (m, id) => m.forgetting.delete({ memory_id: id }),
  promote: (m, id) => m.promotion.promote({ memory_id: id }),
};

export function uiApi(deps: UiApiDeps): express.Router {
  const api = express.Router();
  // The namespace and the ones the token holds were set by the caller's auth (transport/http.ts).
  const memoryOf = (res: Response) => deps.memoryFor(requestState(res).namespace as string);

  api.get('/session', (_req, res) => {
    const memory = memoryOf(res);
    const held = requestState(res).namespaces;
    res.json({
      namespace: memory.overview.namespace,
      // The namespaces the page may switch to: its token's, or any (null) without a token.
      namespaces: Array.isArray(held) ? held : null,
      now: memory.now(),
      decay: deps.curve.decay,
      thresholds: thresholdsOf(deps.curve),
      projected_days: PROJECTED_DAYS,
    });
  });

  api.get('/memories', async (req, res) => {
    const memory = memoryOf(res);
    const query = text(req, 'q');
    const tags = list(text(req, 'tags'));
    const status = text(req, 'status');
    const statuses: MemoryStatus[] = status ? [statusOf(status)] : ['active', 'promoted'];
    const page = whole(req, 'page', 1);
    const sort = sortOf(text(req, 'sort'), query !== '');
    if (query !== '') {
      // The ranking of search_memory, review candidates left out: the page lists, not reminds.
      const found = await memory.recall.search({
        query,
        tags,
        status: statuses,
        page,
        page_size: PAGE_SIZE,
        include_review_candidates: false,
        preview_length: LIST_PREVIEW,
      });
      const rows = found.results.map((hit) => ({
        id: hit.memory_id,
        preview: hit.content,
        tags: hit.tags,
        score: hit.score,
        relevance: hit.relevance,
        use_count: hit.use_count,
        last_used: hit.last_used,
        review_priority: hit.review_priority,
      }));
      if (sort !== 'rank') rows.sort((a, b) => b[sort] - a[sort]);
      res.json({ total: found.total, page, page_size: PAGE_SIZE, sort, rows });
      return;
    }
    const found = await memory.browsing.list({
      statuses,
      tags,
      sort: sort === 'rank' ? 'score' : sort,
      offset: (page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    res.json({
      total: found.total,
      page,
      page_size: PAGE_SIZE,
      sort,
      rows: found.rows.map(({ record, score }) => ({
        ...row(record, score),
        preview: preview(record.content, LIST_PREVIEW),
      })),
    });
  });

  api.get('/memories/:id', async (req, res) => {
    const memory = memoryOf(res);
    const id = req.params.id as string;
    const { memories } = await memory.recall.open({
      memory_ids: [id],
      neighbours: NEIGHBOURS_SHOWN,
    });
    const found = memories[0];
    // Not the id itself: one that looks like a path (/x) would have the message hidden as one.
    if (!found) throw new UserError('no memory has this id: it may have been forgotten (see gc)');
    const note =
      found.promoted_to && deps.vaultDir !== undefined
        ? noteUrl(deps.vaultDir, found.promoted_to)
        : null;
    res.json({ memory: found, note_url: note, curve: scoreCurve(found, memory.now(), deps.curve) });
  });

  api.post('/memories/:id/:action', async (req, res) => {
    const action = req.params.action as string;
    const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (!run) {
      throw new HttpError(
        404,
        `the action must be one of ${ACTION_NAMES}: POST /memories/<id>/<action>`,
      );
    }
    res.json(await run(memoryOf(res), req.params.id as string));
  });

  api.get('/review', async (_req, res) => {
    const memory = memoryOf(res);
    const queue = await memory.overview.reviewQueue(SHOWN);
    res.json({
      rows: queue.map((item) => ({
        ...row(item.record, item.score),
        preview: oneLine(item.record.content),
        review_priority: item.review_priority,
      })),
      conflicts: await memory.conflicts.open(SHOWN),
    });
  });

  // A conflict settled from the review list: the body is settle_conflict's input, checked as it.
  api.post('/conflicts/settle', async (req, res) => {
    const body: unknown = req.body;
    // Not read as JSON (another Content-Type, or none), or JSON but not an object: zod would only
    // say "expected object", which names nothing to fix.
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new UserError(SETTLE_BODY, 'body');
    }
    const parsed = settleConflictInput.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UserError(issue ? issue.message : SETTLE_BODY);
    }
    res.json(await memoryOf(res).conflicts.settle(parsed.data));
  });

  // What gc would forget at the instant asked for (`--at`); nothing changes.
  api.get('/gc', async (req, res) => {
    const memory = memoryOf(res);
    const at = whole(req, 'at', memory.now());
    const candidates = await memory.at(at).forgetting.gcCandidates();
    res.json({ at, total: candidates.length, rows: candidates.slice(0, SHOWN) });
  });

  // gc itself runs now, never at another instant: the page previews first, then asks for this.
  api.post('/gc', async (req, res) => {
    const body: unknown = req.body ?? {};
    // A body that asks to archive in another way than `true` must not delete instead.
    const archive = (body as { archive?: unknown }).archive;
    if (
      typeof body !== 'object' ||
      Array.isArray(body) ||
      !(archive === undefined || typeof archive === 'boolean')
    ) {
      throw new UserError(GC_BODY, 'archive');
    }
    const result = await memoryOf(res).forgetting.gc({
      dry_run: false,
      archive_instead: archive === true,
    });
    res.json({ ...result, candidates: result.candidates.slice(0, SHOWN) });
  });

  api.get('/promotion', async (_req, res) => {
    const candidates = await memoryOf(res).promotion.candidates();
    res.json({ total: candidates.length, rows: candidates.slice(0, SHOWN) });
  });

  api.get('/overview', async (_req, res) => {
    const memory = memoryOf(res);
    const [stats, spread] = await Promise.all([
      memory.stats.summary(),
      memory.browsing.distribution(OVERVIEW_DAYS),
    ]);
    res.json({ now: memory.now(), stats, ...spread });
  });
  // A path whose id or action is not percent-encoded UTF-8 (/memories/%zz): the router's URIError
  // is no fault of mnemo's.
  api.use((error: unknown, _req: Request, _res: Response, next: NextFunction) => {
    next(
      error instanceof URIError
        ? new UserError(
            'the memory id or action in the path is not valid percent-encoding: encode each with encodeURIComponent',
            'id',
          )
        : error,
    );
  });
  return api;
}

/**
 * The note in Obsidian, by the vault's name (its folder's) and the note's path in it: the page
 * may be read from another machine, which has no business knowing where the vault is on this
 * one. A promoted_to outside the vault (an absolute one an import kept) has no link.
 */
function noteUrl(vaultDir: string, promotedTo: string): string | null {
  if (path.isAbsolute(promotedTo) || promotedTo.split(/[\\/]/).includes('..')) return null;
  const vault = encodeURIComponent(path.basename(vaultDir));
  return `obsidian://open?vault=${vault}&file=${encodeURIComponent(promotedTo)}`;
}

function row(record: MemoryRecord, score: number) {
  return {
    id: record.id,
    tags: record.meta.tags,
    status: record.status,
    score,
    use_count: record.use_count,
    last_used: record.last_used,
    created_at: record.created_at,
  };
}

// The refusals of a parameter say what it must be, not what was sent: a value like /etc/passwd,
// quoted, would read as a path of the server, and the error mapper would hide the whole message.
function text(req: Request, name: string): string {
  const value = req.query[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new UserError(`give ?${name}= once`);
  return value.trim();
}

const list = (value: string) =>
  value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');

function whole(req: Request, name: string, fallback: number): number {
  const value = text(req, name);
  if (value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < (name === 'at' ? 0 : 1)) {
    throw new UserError(
      name === 'at'
        ? '?at= must be epoch seconds'
        : `?${name}= must be a whole number of 1 or more`,
    );
  }
  return n;
}

function statusOf(value: string): MemoryStatus {
  if (!(MEMORY_STATUSES as readonly string[]).includes(value)) {
    throw new UserError(`?status= must be one of ${MEMORY_STATUSES.join(', ')}`);
  }
  return value as MemoryStatus;
}

/** The order asked for; 'rank' (search's own) only means something with a query. */
function sortOf(value: string, searching: boolean): BrowseSort | 'rank' {
  if (value === '') return searching ? 'rank' : 'score';
  if (value === 'rank' || (BROWSE_SORTS as readonly string[]).includes(value)) {
    return value as BrowseSort | 'rank';
  }
  throw new UserError(`?sort= must be one of rank, ${BROWSE_SORTS.join(', ')}`);
}
