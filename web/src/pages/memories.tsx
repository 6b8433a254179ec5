// Every memory, or a search with search_memory's ranking; filters by tag and status, sorting.
import { useState } from 'preact/hooks';
import { Busy, MemoryTable, Problem, Tags } from '../components.js';
import { ago, score } from '../format.js';
import { useApi } from '../hooks.js';
import type { Row, Session } from '../types.js';

interface Listing {
  total: number;
  page: number;
  page_size: number;
  sort: string;
  rows: Row[];
}

interface Filters {
  q: string;
  tags: string;
  status: string;
  sort: string;
  page: number;
}

export function MemoriesPage({ session }: { session: Session }) {
  const [draft, setDraft] = useState<Filters>({ q: '', tags: '', status: '', sort: '', page: 1 });
  const [filters, setFilters] = useState<Filters>(draft);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== '' && v !== 1) params.set(k, String(v));
  const { data, error } = useApi<Listing>(`/memories?${params}`);
  const apply = (next: Partial<Filters>) => {
    const merged = { ...draft, ...next, page: next.page ?? 1 };
    setDraft(merged);
    setFilters(merged);
  };
  const pages = data ? Math.max(1, Math.ceil(data.total / data.page_size)) : 1;
  return (
    <section>
      <h1>Memories</h1>
      <search>
        <form
          class="filters list-filters"
          onSubmit={(e) => {
            e.preventDefault();
            apply({});
          }}
        >
          <label>
            Search
            <input
              type="search"
              name="q"
              placeholder="words or meaning"
              value={draft.q}
              onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })}
            />
          </label>
          <label>
            Tags
            <input
              name="tags"
              placeholder="a,b"
              value={draft.tags}
              onInput={(e) => setDraft({ ...draft, tags: e.currentTarget.value })}
              onChange={(e) => apply({ tags: e.currentTarget.value })}
            />
          </label>
          <label>
            Status
            <select
              name="status"
              value={draft.status}
              onChange={(e) => apply({ status: e.currentTarget.value })}
            >
              <option value="">active and promoted</option>
              <option value="active">active</option>
              <option value="promoted">promoted</option>
              <option value="archived">archived</option>
              <option value="superseded">superseded</option>
            </select>
          </label>
          <label>
            Sort by
            <select
              name="sort"
              value={draft.sort}
              onChange={(e) => apply({ sort: e.currentTarget.value })}
            >
              <option value="">{draft.q ? 'search rank' : 'score'}</option>
              <option value="score">score</option>
              <option value="last_used">last use</option>
              <option value="use_count">uses</option>
            </select>
          </label>
          <button type="submit">Search</button>
        </form>
      </search>
      <Problem message={error} />
      {!data && !error ? <Busy /> : null}
      {data ? (
        <>
          <p id="memories-count">
            {data.total} {data.total === 1 ? 'memory' : 'memories'}
            {filters.q ? ` match "${filters.q}"` : ''}
            {filters.q && data.sort !== 'rank' ? ' (this page sorted)' : ''}
          </p>
          <MemoryTable
            id="memories"
            rows={data.rows}
            memoryId={(row) => row.id}
            preview={(row) => row.preview}
            after={(row) => <Tags tags={row.tags} />}
            columns={[
              { head: 'Score', num: true, cell: (row) => score(row.score) },
              { head: 'Uses', num: true, cell: (row) => row.use_count },
              { head: 'Last use', cell: (row) => ago(row.last_used, session.now) },
            ]}
          />
          {pages > 1 ? (
            <div class="pager">
              <button
                type="button"
                class="secondary"
                disabled={filters.page <= 1}
                onClick={() => apply({ page: filters.page - 1 })}
              >
                Previous
              </button>
              <span>
                page {filters.page} of {pages}
              </span>
              <button
                type="button"
                class="secondary"
                disabled={filters.page >= pages}
                onClick={() => apply({ page: filters.page + 1 })}
              >
                Next
              </button>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
