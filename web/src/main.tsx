// The page: a token if the server wants one, a bar of links, and the page the address names.
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type ApiError, adoptTokenFromFragment, api, prefetch, session } from './api.js';
import { ConsentPage } from './pages/consent.js';
import { ForgettingPage } from './pages/forgetting.js';
import { MemoriesPage } from './pages/memories.js';
import { MemoryPage } from './pages/memory.js';
import { OverviewPage } from './pages/overview.js';
import { PromotionPage } from './pages/promotion.js';
import { ReviewPage } from './pages/review.js';
import type { Session } from './types.js';

const PAGES = [
  ['memories', 'Memories'],
  ['review', 'Review'],
  ['forgetting', 'Forgetting'],
  ['promotion', 'Promotion'],
  ['overview', 'Overview'],
] as const;

function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

function TokenForm({ onSaved, wrong }: { onSaved(): void; wrong: boolean }) {
  const [value, setValue] = useState('');
  return (
    <article>
      <h2>This mnemo wants a token</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          session.setToken(value.trim());
          onSaved();
        }}
      >
        <label>
          Access token
          <input
            type="password"
            name="token"
            autoComplete="off"
            value={value}
            aria-invalid={wrong ? 'true' : undefined}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
          <small>
            {wrong
              ? 'That token was refused: check it and try again.'
              : 'MNEMO_AUTH_TOKEN, or one of MNEMO_TOKENS. Kept in this tab only.'}
          </small>
        </label>
        <button type="submit">Open</button>
      </form>
    </article>
  );
}

/** The namespace this tab looks at: one of its token's, or any name without a token. */
function NamespacePicker({ info, onPicked }: { info: Session; onPicked(): void }) {
  const pick = (name: string) => {
    session.setNamespace(name.trim() || null);
    onPicked();
  };
  if (info.namespaces !== null && info.namespaces.length <= 1) {
    return <small>{info.namespace}</small>;
  }
  return (
    <span class="namespace">
      {info.namespaces === null ? (
        <input
          name="namespace"
          aria-label="Namespace"
          value={info.namespace}
          onChange={(e) => pick(e.currentTarget.value)}
        />
      ) : (
        <select
          name="namespace"
          aria-label="Namespace"
          value={info.namespace}
          onChange={(e) => pick(e.currentTarget.value)}
        >
          {info.namespaces.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      )}
    </span>
  );
}

function App() {
  const route = useRoute();
  const [info, setInfo] = useState<Session | null>(null);
  const [problem, setProblem] = useState<ApiError | null>(null);
  const load: () => void = useCallback(() => {
    setProblem(null);
    api<Session>('/session').then(setInfo, (error: ApiError) => {
      // A namespace this token does not hold (another token's): back to the token's own.
      if (error.status === 403 && session.namespace()) {
        session.setNamespace(null);
        load();
        return;
      }
      setInfo(null);
      setProblem(error);
    });
  }, []);
  useEffect(load, []);
  const page = route[0] || 'memories';
  let body: preact.JSX.Element;
  if (problem?.status === 401) {
    body = <TokenForm onSaved={load} wrong={session.token() !== null} />;
  } else if (problem) {
    body = <p class="error">{problem.message}</p>;
  } else if (!info) {
    body = <p aria-busy="true">Loading…</p>;
  } else if (page === 'memory' && route[1]) {
    body = <MemoryPage id={route[1]} session={info} />;
  } else if (page === 'review') {
    body = <ReviewPage session={info} />;
  } else if (page === 'forgetting') {
    body = <ForgettingPage session={info} />;
  } else if (page === 'promotion') {
    body = <PromotionPage session={info} />;
  } else if (page === 'overview') {
    body = <OverviewPage session={info} />;
  } else {
    body = <MemoriesPage session={info} />;
  }
  return (
    <>
      <header class="container">
        <nav class="top" aria-label="pages">
          <ul>
            <li>
              <strong>mnemo</strong>
            </li>
            {info ? (
              <li>
                <NamespacePicker info={info} onPicked={load} />
              </li>
            ) : null}
          </ul>
          <ul>
            {PAGES.map(([name, label]) => (
              <li key={name}>
                <a href={`#/${name}`} aria-current={page === name ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
            {session.token() ? (
              <li>
                <button
                  type="button"
                  class="secondary outline"
                  onClick={() => {
                    session.setToken(null);
                    load();
                  }}
                >
                  Forget token
                </button>
              </li>
            ) : null}
          </ul>
        </nav>
      </header>
      <main class="container">{body}</main>
    </>
  );
}

/** The OAuth consent (src/oauth/provider.ts sends the browser there): the page's look, on its own. */
function Consent() {
  return (
    <>
      <header class="container">
        <nav class="top">
          <ul>
            <li>
              <strong>mnemo</strong>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container">
        <ConsentPage uid={new URLSearchParams(location.search).get('uid')} />
      </main>
    </>
  );
}

const consent = location.pathname === '/ui/consent';
if (!consent) {
  adoptTokenFromFragment();
  // The first list is asked for beside /session, not after it: the key is what MemoriesPage asks.
  if ((location.hash.replace(/^#\/?/, '') || 'memories') === 'memories') prefetch('/memories?');
}
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(consent ? <Consent /> : <App />, root);
}
