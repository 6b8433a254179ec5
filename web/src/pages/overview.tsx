// The memory at a glance: counts, a histogram of scores, saves and last uses a day.
import { useEffect, useRef } from 'preact/hooks';
import { Busy, Problem } from '../components.js';
import { useApi } from '../hooks.js';
import { barPlot } from '../plot.js';
import type { Session } from '../types.js';
import { OAuthGrants } from './grants.js';

interface OverviewData {
  stats: {
    total: number;
    by_status: Record<string, number>;
    danger_zone_count: number;
    gc_candidates: number;
    promotion_candidates: number;
    relations: number;
  };
  scores: { top: number; counts: number[] };
  days: number[];
  saves: number[];
  lastUses: number[];
}

function Bars(props: {
  x: number[];
  series: { label: string; values: number[]; color: string }[];
  time: boolean;
  label: string;
  id: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const plot = barPlot(ref.current, props.x, props.series, props.time);
    return () => plot.destroy();
  }, [props.x, props.series, props.time]);
  return <div class="plot" id={props.id} ref={ref} role="img" aria-label={props.label} />;
}

export function OverviewPage(_props: { session: Session }) {
  const { data, error } = useApi<OverviewData>('/overview');
  if (error) return <Problem message={error} />;
  if (!data) return <Busy />;
  const s = data.stats;
  const width = data.scores.top / data.scores.counts.length;
  const counts: [string, number][] = [
    ['memories', s.total],
    ['active', s.by_status.active ?? 0],
    ['promoted', s.by_status.promoted ?? 0],
    ['archived', s.by_status.archived ?? 0],
    ['superseded', s.by_status.superseded ?? 0],
    ['to review', s.danger_zone_count],
    ['gc would forget', s.gc_candidates],
    ['to promote', s.promotion_candidates],
    ['relations', s.relations],
  ];
  return (
    <section>
      <h1>Overview</h1>
      <div class="counts" id="counts">
        {counts.map(([label, n]) => (
          <article key={label}>
            <strong>{n}</strong>
            {label}
          </article>
        ))}
      </div>
      <h2>Scores</h2>
      <Bars
        id="histogram"
        label="histogram of scores"
        time={false}
        x={data.scores.counts.map((_, i) => (i + 0.5) * width)}
        series={[{ label: 'memories', values: data.scores.counts, color: '#2563eb' }]}
      />
      <h2>The last 30 days</h2>
      <Bars
        id="per-day"
        label="saves and last uses a day"
        time={true}
        x={data.days}
        series={[
          { label: 'saved', values: data.saves, color: '#16a34a' },
          { label: 'last used', values: data.lastUses, color: '#7c3aed' },
        ]}
      />
      <OAuthGrants />
    </section>
  );
}
