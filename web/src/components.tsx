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
