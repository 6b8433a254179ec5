// The danger-zone queue: memories about to fade out of reach, most urgent first; and the pairs
// of memories that contradict, each with the four ways to settle it.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Busy, MemoryLink, MemoryTable, Notice, Problem } from '../components.js';
import { ago, score } from '../format.js';
import { confirmed, useApi } from '../hooks.js';
import type { Conflict, Row, Session } from '../types.js';

/** The buttons of a conflict: what settle_conflict's keep is, its label, the question asked. */
const SETTLE: [keep: string, label: string, question: string][] = [
  ['first', 'Keep the first', 'Keep the first; the second becomes superseded by it?'],
  ['second', 'Keep the second', 'Keep the second; the first becomes superseded by it?'],
  ['both', 'Both hold', 'Both hold: take the pair off the list?'],
  ['merge', 'Merge', 'Merge the two into one memory (both archived)?'],
];

export function ReviewPage({ session }: { session: Session }) {
  const { data, error, reload } = useApi<{ rows: Row[]; conflicts?: Conflict[] }>('/review');
  const [notice, setNotice] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const th = session.thresholds;
  const settle = async (conflict: Conflict, keep: string, question: string) => {
    setNotice(null);
    setFailed(null);
    const body = {
      memory_id: conflict.first.memory_id,
      other_id: conflict.second.memory_id,
      keep,
    };
    const done = await confirmed(
      question,
      () => api('/conflicts/settle', body),
      (message) => setFailed(message),
    );
    if (done) {
      setNotice(`settled: ${keep}`);
      reload();
    }
  };
  const conflicts = data?.conflicts ?? [];
  return (
    <section>
      <h1>Review</h1>
      <Notice message={notice} />
      <Problem message={failed} />
      {conflicts.length > 0 ? (
        <>
          <h2>Conflicts</h2>
          <p>These pairs seem to contradict each other (the first is the newer). Which holds?</p>
          <ol id="conflicts">
            {conflicts.map((c) => (
              <li key={c.relation_id}>
                <p>
                  <MemoryLink id={c.first.memory_id}>first</MemoryLink>: {c.first.content}
                  <br />
                  <MemoryLink id={c.second.memory_id}>second</MemoryLink>: {c.second.content}
                </p>
                <fieldset class="actions" aria-label="settle">
                  {SETTLE.map(([keep, label, question]) => (
                    <button
                      type="button"
                      key={keep}
                      class="outline"
                      onClick={() => settle(c, keep, question)}
                    >
                      {label}
                    </button>
                  ))}
                </fieldset>
              </li>
            ))}
          </ol>
          <h2>Fading</h2>
        </>
      ) : null}
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
