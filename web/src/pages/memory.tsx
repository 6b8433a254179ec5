// One memory: its fields, relations, note, the plot of its score, and what can be done to it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Busy, MemoryLink, Notice, Problem, Tags } from '../components.js';
import { ago, date, score } from '../format.js';
import { confirmed, useApi } from '../hooks.js';
import { curvePlot } from '../plot.js';
import type { Curve, FullMemory, Session } from '../types.js';

const ACTIONS = [
  ['touch', 'Touch', 'Mark it used now (its decay restarts)?'],
  ['archive', 'Archive', 'Archive it? It leaves search; Restore brings it back.'],
  ['restore', 'Restore', 'Make it active again?'],
  ['promote', 'Promote', 'Write it into the Obsidian vault as a note?'],
  ['delete', 'Delete', 'Delete it? It is kept among the forgotten: Restore brings it back.'],
] as const;

function Plot({ curve }: { curve: Curve }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const plot = curvePlot(ref.current, curve);
    const resize = () =>
      ref.current && plot.setSize({ width: ref.current.clientWidth, height: 320 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [curve]);
  return (
    <figure>
      <div class="plot" id="curve" ref={ref} role="img" aria-label="score over time" />
      <figcaption>
        <small>
          Score over time: the past (solid), the next 90 days if nobody uses it (dashed), the review
          band, the forget and promotion lines.
          {curve.usesSpread
            ? ' The record keeps the count of uses and the last one: the others are drawn spread evenly since creation.'
            : ''}
          {curve.forgetAt !== null
            ? ` Below the forget line from ${date(curve.forgetAt)} UTC.`
            : ' Above the forget line for the next 90 days.'}
        </small>
      </figcaption>
    </figure>
  );
}

export function MemoryPage({ id, session }: { id: string; session: Session }) {
  const { data, error, reload } = useApi<{
    memory: FullMemory;
    curve: Curve;
    note_url: string | null;
  }>(`/memories/${encodeURIComponent(id)}`);
  const [notice, setNotice] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const gone = error !== null && /no memory/.test(error);
  const act = async (name: string, question: string) => {
    setNotice(null);
    setFailed(null);
    let undone = '';
    const done = await confirmed(
      question,
      async () => {
        const answer = await api<{ superseded_undone?: { memory_id: string }[] }>(
          `/memories/${encodeURIComponent(id)}/${name}`,
          {},
        );
        const ids = answer.superseded_undone?.map((m) => m.memory_id) ?? [];
        // Archive, delete or restore of either side of a supersession: say what is current again.
        if (ids.length > 0) undone = ` (current again: ${ids.join(', ')})`;
      },
      (message) => setFailed(message),
    );
    if (done) {
      setNotice(`${name}: done${undone}`);
      reload();
    }
  };
  return (
    <section>
      <p>
        <a href="#/memories">← Memories</a>
      </p>
      <Notice message={notice} />
      <Problem message={failed} />
      {gone ? (
        <article>
          <p>
            This memory is not live (deleted or forgotten by gc). Restore brings it back if it is
            among the forgotten.
          </p>
          <button type="button" onClick={() => act('restore', 'Bring it back?')}>
            Restore
          </button>
        </article>
      ) : (
        <Problem message={error} />
      )}
      {!data && !error ? <Busy /> : null}
      {data ? (
        <Details
          memory={data.memory}
          curve={data.curve}
          noteUrl={data.note_url}
          session={session}
          act={act}
        />
      ) : null}
    </section>
  );
}

function Details(props: {
  memory: FullMemory;
  curve: Curve;
  noteUrl: string | null;
  session: Session;
  act(name: string, question: string): void;
}) {
  const { memory: m, curve, session } = props;
  return (
    <>
      <h1>Memory</h1>
      <div class="content" id="content">
        {m.content}
      </div>
      <p>
        <Tags tags={m.meta.tags} />
      </p>
      <fieldset class="actions" aria-label="actions">
        {ACTIONS.filter(([name]) =>
          name === 'restore'
            ? m.status === 'archived' || m.status === 'superseded'
            : name !== 'archive' || m.status !== 'archived',
        ).map(([name, label, question]) => (
          <button
            type="button"
            key={name}
            class={name === 'delete' ? 'secondary outline' : 'outline'}
            onClick={() => props.act(name, question)}
          >
            {label}
          </button>
        ))}
      </fieldset>
      <Plot curve={curve} />
      <table>
        <tbody>
          <tr>
            <th scope="row">Status</th>
            <td id="status">{m.status}</td>
          </tr>
          <tr>
            <th scope="row">Score</th>
            <td>
              {score(m.score)}
              {m.review_priority > 0
                ? ` (in the review band, priority ${score(m.review_priority)})`
                : ''}
            </td>
          </tr>
          <tr>
            <th scope="row">Uses</th>
            <td>
              {m.use_count}, last {date(m.last_used)} UTC ({ago(m.last_used, session.now)})
            </td>
          </tr>
          <tr>
            <th scope="row">Saved</th>
            <td id="when">
              {m.date}, {m.ago} ({date(m.created_at)} UTC)
            </td>
          </tr>
          <tr>
            <th scope="row">Strength</th>
            <td>{m.strength}</td>
          </tr>
          <tr>
            <th scope="row">Note</th>
            <td>
              {m.promoted_to === null ? (
                'not promoted'
              ) : props.noteUrl?.startsWith('obsidian://') ? (
                <a href={props.noteUrl} id="note-link">
                  {m.promoted_to}
                </a>
              ) : (
                <code>{m.promoted_to}</code>
              )}
            </td>
          </tr>
          {m.meta.source ? (
            <tr>
              <th scope="row">Source</th>
              <td>{m.meta.source}</td>
            </tr>
          ) : null}
          {m.meta.context ? (
            <tr>
              <th scope="row">Context</th>
              <td>{m.meta.context}</td>
            </tr>
          ) : null}
          {m.entities.length > 0 ? (
            <tr>
              <th scope="row">Entities</th>
              <td>{m.entities.join(', ')}</td>
            </tr>
          ) : null}
          {m.superseded_by ? (
            <tr>
              <th scope="row">Superseded by</th>
              <td id="superseded-by">
                <MemoryLink id={m.superseded_by.memory_id}>
                  {m.superseded_by.content || m.superseded_by.memory_id}
                </MemoryLink>
              </td>
            </tr>
          ) : null}
          {m.supersedes && m.supersedes.length > 0 ? (
            <tr>
              <th scope="row">Supersedes</th>
              <td>
                {m.supersedes.map((s) => (
                  <div key={s.memory_id}>
                    <MemoryLink id={s.memory_id}>{s.content}</MemoryLink>
                  </div>
                ))}
              </td>
            </tr>
          ) : null}
          <tr>
            <th scope="row">Id</th>
            <td>
              <code>{m.id}</code> (version {m.version})
            </td>
          </tr>
        </tbody>
      </table>
      <Neighbours memory={m} />
      <h2>Relations</h2>
      {m.relations.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {m.relations.map((r) => {
            const other = r.from_memory_id === m.id ? r.to_memory_id : r.from_memory_id;
            const arrow = r.from_memory_id === m.id ? '→' : '←';
            return (
              <li key={r.id}>
                {r.relation_type} {arrow} <MemoryLink id={other}>{other}</MemoryLink>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

/** What was saved around it: the same source and context (or, with neither, within 6 hours). */
function Neighbours({ memory: m }: { memory: FullMemory }) {
  const around = m.neighbours ?? [];
  const before = around.filter((n) => n.offset < 0);
  const after = around.filter((n) => n.offset > 0);
  const item = (n: (typeof around)[number]) => (
    <li key={n.memory_id}>
      <small>{n.date}</small> <MemoryLink id={n.memory_id}>{n.content}</MemoryLink>
    </li>
  );
  return (
    <>
      <h2>Saved around it</h2>
      {around.length === 0 ? (
        <p id="neighbours">
          Nothing else was saved in its session
          {m.meta.source || m.meta.context ? '' : ' (no source or context: within 6 hours)'}.
        </p>
      ) : (
        <ol id="neighbours">
          {before.map(item)}
          <li aria-current="true">
            <small>{m.date}</small> <strong>this memory</strong>
          </li>
          {after.map(item)}
        </ol>
      )}
    </>
  );
}
