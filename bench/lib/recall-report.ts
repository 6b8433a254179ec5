// bench:recall's tables: each mode's figures by method, by category, and the temporal
// questions on their own.

export interface Figures {
  turn_any_at_5: number;
  turn_any_at_10: number;
  session_any_at_5: number;
}

export interface ReportRow {
  method: string;
  mode: string;
  skipped?: string;
  figures?: Figures;
  by_category?: ({ category: number; name: string; n: number } & Figures)[];
  seconds?: number;
}

const f3 = (x: number) => x.toFixed(3);

export function report(
  title: string,
  results: readonly ReportRow[],
  reference: { method: string; figures: Figures },
): string {
  const row = (name: string, f: Figures) =>
    `| ${name} | ${f3(f.turn_any_at_5)} | ${f3(f.turn_any_at_10)} | ${f3(f.session_any_at_5)} |`;
  const name = (r: ReportRow) => `${r.mode}: ${r.method}`;
  const measured = results.filter((r) => r.by_category);
  const temporal = (r: ReportRow) => r.by_category?.find((c) => c.name === 'temporal');
  return [
    title,
    '',
    '| mode: method | turn any@5 | turn any@10 | session any@5 |',
    '|---|---|---|---|',
    ...results.map((r) =>
      r.figures ? row(name(r), r.figures) : `| ${name(r)} | not run: ${r.skipped} | | |`,
    ),
    row(`today: ${reference.method}`, reference.figures),
    '',
    '| mode: method | multi-hop | temporal | open-domain | single-hop | seconds |',
    '|---|---|---|---|---|---|',
    ...measured.map(
      (r) =>
        `| ${name(r)} | ${r.by_category?.map((c) => f3(c.turn_any_at_5)).join(' | ')} | ${r.seconds} |`,
    ),
    '',
    '(by category: turn any@5)',
    '',
    '| mode: method | temporal: turn any@5 | temporal: session any@5 | questions |',
    '|---|---|---|---|',
    ...measured.map((r) => {
      const t = temporal(r);
      return `| ${name(r)} | ${f3(t?.turn_any_at_5 ?? 0)} | ${f3(t?.session_any_at_5 ?? 0)} | ${t?.n ?? 0} |`;
    }),
  ].join('\n');
}
