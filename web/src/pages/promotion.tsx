// The memories durable enough for the vault, and why each qualifies.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Busy, MemoryTable, Notice, Problem } from '../components.js';
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
        <MemoryTable
          id="promotion"
          rows={data.rows}
          memoryId={(row) => row.memory_id}
          preview={(row) => row.preview}
          columns={[
            { head: 'Why', cell: (row) => row.reason },
            { head: 'Score', num: true, cell: (row) => score(row.score) },
            {
              head: '',
              cell: (row) => (
                <button type="button" class="outline" onClick={() => promote(row.memory_id)}>
                  Promote
                </button>
              ),
            },
          ]}
        />
      ) : null}
    </section>
  );
}
