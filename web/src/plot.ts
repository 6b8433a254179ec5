// The plot of a memory's score over time (uPlot, on a canvas): the past, the projection, the
// danger-zone band, the forget and promotion lines, now, and the uses.
import uPlot from 'uplot';
import type { Curve } from './types.js';

const PAST = '#2563eb';
const FUTURE = '#7c3aed';
const DANGER = 'rgba(245, 158, 11, 0.18)';
const FORGET = '#dc2626';
const PROMOTE = '#16a34a';
const NOW = '#6b7280';

export function curvePlot(target: HTMLElement, curve: Curve): uPlot {
  const { thresholds: th } = curve;
  let top = th.promote * 1.15;
  for (const v of curve.past) if (v !== null && v > top) top = v;
  for (const v of curve.future) if (v !== null && v > top) top = v;
  const horizontal = (u: uPlot, value: number, color: string, label: string) => {
    const { ctx } = u;
    const y = u.valToPos(value, 'y', true);
    ctx.save();
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    ctx.beginPath();
    ctx.moveTo(u.bbox.left, y);
    ctx.lineTo(u.bbox.left + u.bbox.width, y);
    ctx.stroke();
    ctx.font = `${11 * devicePixelRatio}px sans-serif`;
    // uPlot leaves the y axis's alignment (right, middle) on the context.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText(label, u.bbox.left + 4 * devicePixelRatio, y - 4 * devicePixelRatio);
    ctx.restore();
  };
  const opts: uPlot.Options = {
    width: Math.max(280, target.clientWidth),
    height: 320,
    scales: { x: { time: true }, y: { range: [0, top * 1.08] } },
    axes: [{}, { label: 'score', size: 50 }],
    series: [
      { label: 'time' },
      { label: 'past', stroke: PAST, width: 2, spanGaps: false, points: { show: false } },
      { label: 'next 90 days', stroke: FUTURE, width: 2, dash: [8, 4], points: { show: false } },
    ],
    legend: { live: false },
    hooks: {
      drawClear: [
        (u) => {
          const { ctx } = u;
          const y1 = u.valToPos(th.dangerMax, 'y', true);
          const y0 = u.valToPos(th.dangerMin, 'y', true);
          ctx.save();
          ctx.fillStyle = DANGER;
          ctx.fillRect(u.bbox.left, y1, u.bbox.width, y0 - y1);
          ctx.restore();
        },
      ],
      draw: [
        (u) => {
          horizontal(u, th.forget, FORGET, `forget < ${th.forget}`);
          horizontal(u, th.promote, PROMOTE, `promote ≥ ${th.promote}`);
          const { ctx } = u;
          ctx.save();
          ctx.font = `${11 * devicePixelRatio}px sans-serif`;
          ctx.textAlign = 'left';
          ctx.textBaseline = 'alphabetic';
          ctx.fillStyle = '#b45309';
          ctx.fillText(
            `review ${th.dangerMin}–${th.dangerMax}`,
            u.bbox.left + 4 * devicePixelRatio,
            u.valToPos(th.dangerMax, 'y', true) + 14 * devicePixelRatio,
          );
          const x = u.valToPos(curve.now, 'x', true);
          ctx.strokeStyle = NOW;
          ctx.setLineDash([2 * devicePixelRatio, 3 * devicePixelRatio]);
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.fillStyle = NOW;
          ctx.fillText('now', x + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
          // Each use: a tick at the foot of the plot.
          ctx.setLineDash([]);
          ctx.strokeStyle = PAST;
          const foot = u.bbox.top + u.bbox.height;
          for (const use of curve.uses) {
            const ux = u.valToPos(use, 'x', true);
            ctx.beginPath();
            ctx.moveTo(ux, foot);
            ctx.lineTo(ux, foot - 8 * devicePixelRatio);
            ctx.stroke();
          }
          ctx.restore();
          target.dataset.drawn = 'true';
        },
      ],
    },
  };
  return new uPlot(opts, [curve.t, curve.past, curve.future], target);
}

/** A bar chart of `values` over `x` (a histogram, counts a day). */
export function barPlot(
  target: HTMLElement,
  x: number[],
  series: { label: string; values: number[]; color: string }[],
  time: boolean,
): uPlot {
  const bars = uPlot.paths.bars?.({ size: [0.8, 40] });
  const opts: uPlot.Options = {
    width: Math.max(280, target.clientWidth),
    height: 220,
    scales: { x: { time }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    series: [
      { label: time ? 'day' : 'score' },
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        fill: `${s.color}99`,
        ...(bars ? { paths: bars } : {}),
        points: { show: false },
      })),
    ],
    legend: { live: false },
    hooks: {
      draw: [
        () => {
          target.dataset.drawn = 'true';
        },
      ],
    },
  };
  return new uPlot(opts, [x, ...series.map((s) => s.values)], target);
}
