// The memories durable enough for the vault, and why each qualifies.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Busy, MemoryLink, Notice, Problem } from '../components.js';
import { score } from '../format.js';
import { confirmed, useApi } from '../hooks.js';
import type { PromotionRow, Session } from '../types.js';

export function PromotionPage({ session }: { session: Session }) {
  const { data, error, reload } = useApi<{ total: number; rows: PromotionRow[] }>('/promotion');
  const [notice, setNotice] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const promote = async (id: string) => {
    setNotice(null);
    setFailed(null);
    const done = await confirmed(
      'Write this memory into the Obsidian vault as a note?',
      () => api(`/memories/${encodeURIComponent(id)}/promote`, {}),
      (message) => setFailed(message),
    );
    if (done) {
      setNotice('Promoted.');
      reload();
    }
  };
  return (
    <section>
      <h1>Promotion</h1>
      <p>
        Candidates for the vault: a score of {session.thresholds.promote} or more with enough uses,
        or many uses soon after being saved.
      </p>
      <Notice message={notice} />
      <Problem message={failed ?? error} />
      {!data && !error ? <Busy /> : null}
      {data && data.total === 0 ? <p>No memory qualifies yet.</p> : null}
      {data && data.total > 0 ? (
        <div class="table-wrap">
          <table class="striped" id="promotion">
            <thead>
              <tr>
                <th>Memory</th>
                <th>Why</th>
                <th class="num">Score</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {data.rows.map((row) => (
                <tr key={row.memory_id}>
                  <td class="preview">
                    <MemoryLink id={row.memory_id}>{row.preview}</MemoryLink>
                  </td>
                  <td>{row.reason}</td>
                  <td class="num">{score(row.score)}</td>
                  <td>
                    <button type="button" class="outline" onClick={() => promote(row.memory_id)}>
                      Promote
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
