// The danger-zone queue: memories about to fade out of reach, most urgent first.
import { Busy, MemoryLink, Problem } from '../components.js';
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
        <div class="table-wrap">
          <table class="striped" id="review">
            <thead>
              <tr>
                <th>Memory</th>
                <th class="num">Priority</th>
                <th class="num">Score</th>
                <th>Last use</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((row) => (
                <tr key={row.id}>
                  <td class="preview">
                    <MemoryLink id={row.id}>{row.preview}</MemoryLink>
                  </td>
                  <td class="num">{score(row.review_priority)}</td>
                  <td class="num">{score(row.score)}</td>
                  <td>{ago(row.last_used, session.now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
