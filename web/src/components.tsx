// Small pieces the pages share. Memory text is always a text node: never markup.
import type { ComponentChildren } from 'preact';

export function Tags({ tags }: { tags: readonly string[] }) {
  return (
    <>
      {tags.map((t) => (
        <span class="tag" key={t}>
          {t}
        </span>
      ))}
    </>
  );
}

export function MemoryLink({ id, children }: { id: string; children: ComponentChildren }) {
  return <a href={`#/memory/${encodeURIComponent(id)}`}>{children}</a>;
}

export function Problem({ message }: { message: string | null }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}

export function Notice({ message }: { message: string | null }) {
  return message ? <p role="status">{message}</p> : null;
}

export function Busy() {
  return <p aria-busy="true">Loading…</p>;
}

/** One column of a MemoryTable after the memory itself. */
export interface Column<R> {
  head: string;
  num?: boolean;
  cell(row: R): ComponentChildren;
}

/**
 * The memories of a page: a link to each (its preview, then `after` the link, such as its tags),
 * then the page's own columns.
 */
export function MemoryTable<R>(props: {
  id: string;
  rows: readonly R[];
  memoryId(row: R): string;
  preview(row: R): string;
  after?(row: R): ComponentChildren;
  columns: Column<R>[];
}) {
  const { id, rows, memoryId, preview, after, columns } = props;
  const numeric = (c: Column<R>) => (c.num ? 'num' : undefined);
  return (
    <div class="table-wrap">
      <table class="striped" id={id}>
        <thead>
          <tr>
            <th>Memory</th>
            {columns.map((c, i) => (
              <th key={i} class={numeric(c)}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={memoryId(row)}>
              <td class="preview">
                <MemoryLink id={memoryId(row)}>{preview(row)}</MemoryLink>
                {after ? <> {after(row)}</> : null}
              </td>
              {columns.map((c, i) => (
                <td key={i} class={numeric(c)}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
