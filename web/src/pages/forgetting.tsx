// What gc would forget at a date the person picks (like `mnemo gc --at`), and gc itself.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Busy, MemoryTable, Notice, Problem } from '../components.js';
import { DAY, date, day, score } from '../format.js';
import { confirmed, useApi } from '../hooks.js';
import type { GcRow, Session } from '../types.js';

const MAX_DAYS = 365;

export function ForgettingPage({ session }: { session: Session }) {
  const [days, setDays] = useState(0);
  // What the slider shows while it moves; the preview is asked for where it is let go.
  const [sliding, setSliding] = useState<number | null>(null);
  const at = session.now + days * DAY;
  const { data, error, reload } = useApi<{ at: number; total: number; rows: GcRow[] }>(
    `/gc?at=${at}`,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const pickDate = (value: string) => {
    const t = Date.parse(`${value}T00:00:00Z`) / 1000;
    if (Number.isNaN(t)) return;
    const whole = Math.ceil((t - session.now) / DAY);
    setDays(Math.min(MAX_DAYS, Math.max(0, whole)));
  };
  const run = async () => {
    setNotice(null);
    setFailed(null);
    let result: { total_affected: number } | undefined;
    const done = await confirmed(
      `Forget the ${data?.total ?? 0} memories gc finds now? They stay recoverable (Restore).`,
      async () => {
        result = await api<{ total_affected: number }>('/gc', {});
      },
      (message) => setFailed(message),
    );
    if (done) {
      setNotice(`gc forgot ${result?.total_affected ?? 0} memories.`);
      reload();
    }
  };
  return (
    <section>
      <h1>Forgetting</h1>
      <p>
        What gc would forget: active memories scoring under {session.thresholds.forget}. Pick a
        later date to see what fades by then if nobody uses it.
      </p>
      <div class="filters">
        <label>
          At
          <input
            type="date"
            name="at"
            value={day(at)}
            min={day(session.now)}
            onChange={(e) => pickDate(e.currentTarget.value)}
          />
        </label>
        <label class="wide">
          Days from now: {sliding ?? days}
          <input
            type="range"
            name="days"
            min={0}
            max={MAX_DAYS}
            value={sliding ?? days}
            onInput={(e) => setSliding(Number(e.currentTarget.value))}
            onChange={(e) => {
              setSliding(null);
              setDays(Number(e.currentTarget.value));
            }}
          />
        </label>
      </div>
      <Notice message={notice} />
      <Problem message={failed ?? error} />
      {!data && !error ? <Busy /> : null}
      {data ? (
        <>
          <p id="gc-summary">
            {days === 0 ? 'Now' : `On ${date(data.at)} UTC`}, gc would forget {data.total}{' '}
            {data.total === 1 ? 'memory' : 'memories'}
            {data.rows.length < data.total ? ` (the weakest ${data.rows.length} shown)` : ''}.
          </p>
          {days === 0 && data.total > 0 ? (
            <button type="button" class="secondary" onClick={run}>
              Run gc now
            </button>
          ) : null}
          <MemoryTable
            id="gc"
            rows={data.rows}
            memoryId={(row) => row.memory_id}
            preview={(row) => row.preview}
            columns={[
              { head: 'Score then', num: true, cell: (row) => score(row.score) },
              { head: 'Uses', num: true, cell: (row) => row.use_count },
              { head: 'Age then', num: true, cell: (row) => `${row.age_days} d` },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}
