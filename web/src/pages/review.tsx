// The danger-zone queue: memories about to fade out of reach, most urgent first.
import { Busy, MemoryTable, Problem } from '../components.js';
import { ago, score } from '../format.js';
import { useApi } from '../hooks.js';
import type { Row, Session } from '../types.js';

export function ReviewPage({ session }: { session: Session }) {
  const { data, error } = useApi<{ rows: Row[] }>('/review');
  const th = session.thresholds;
  return (
    <section>
      <h1>Review</h1>
      <p>
        Memories scoring between {th.dangerMin} and {th.dangerMax}, most urgent first: still true?
        Touch the ones worth keeping.
      </p>
      <Problem message={error} />
      {!data && !error ? <Busy /> : null}
      {data && data.rows.length === 0 ? <p>Nothing is due for review.</p> : null}
      {data && data.rows.length > 0 ? (
        <MemoryTable
          id="review"
          rows={data.rows}
          memoryId={(row) => row.id}
          preview={(row) => row.preview}
          columns={[
            { head: 'Priority', num: true, cell: (row) => score(row.review_priority) },
            { head: 'Score', num: true, cell: (row) => score(row.score) },
            { head: 'Last use', cell: (row) => ago(row.last_used, session.now) },
          ]}
        />
      ) : null}
    </section>
  );
}
