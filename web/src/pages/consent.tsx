// The OAuth consent (/ui/consent?uid=…, where the provider sends the browser): which client asks,
// the host it sends the answer back to, and the namespaces it would get. The person proves it is
// them with the access token and answers; the consent API (src/oauth/consent.ts) says where the
// browser goes next. What the client registered (its name) is only ever text. The namespaces are
// listed once the token is given (those it may give): whoever starts a flow sees none.
import { useEffect, useState } from 'preact/hooks';
import { session } from '../api.js';
import { Busy, Problem } from '../components.js';

interface Request {
  client: { id: string; name: string | null; redirect_host: string | null };
  namespaces: string[];
  resource: string;
}

type Decision = 'allow' | 'deny';

/** The consent API's answer, or its error message as a thrown Error. */
async function call<T>(uid: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(`/oauth/interaction/${encodeURIComponent(uid)}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json().catch(() => null)) as {
    error?: { message?: string };
  } | null;
  if (!res.ok) throw new Error(data?.error?.message ?? `the server answered ${res.status}`);
  return data as T;
}

export function ConsentPage({ uid }: { uid: string | null }) {
  const [request, setRequest] = useState<Request | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [token, setToken] = useState(() => session.token() ?? '');
  const [busy, setBusy] = useState(false);

  // The request, and the namespaces the token given so far may give (asked again as it changes).
  const given = token.trim();
  useEffect(() => {
    if (!uid) return;
    let stale = false;
    const timer = setTimeout(
      () =>
        call<Request>(uid, undefined, given).then(
          (asked) => {
            if (stale) return;
            setRequest(asked);
            // One namespace: it is the choice. Several: the person picks, none picked for them.
            setChosen((was) =>
              asked.namespaces.length === 1
                ? new Set(asked.namespaces)
                : new Set([...was].filter((name) => asked.namespaces.includes(name))),
            );
          },
          (error: Error) => {
            if (!stale) setFailed(error.message);
          },
        ),
      request === null ? 0 : 300,
    );
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [uid, given]);

  if (!uid) {
    return (
      <Problem message="This address names no consent request: start again from the app that asked." />
    );
  }

  const answer = async (decision: Decision) => {
    setFailed(null);
    if (token.trim() === '') {
      setFailed('Give the access token first: it proves you are the owner of this memory.');
      return;
    }
    // No namespace listed: the token is wrong, and the server says so.
    if (decision === 'allow' && chosen.size === 0 && (request?.namespaces.length ?? 0) > 0) {
      setFailed('Choose at least one namespace this client may use.');
      return;
    }
    setBusy(true);
    try {
      const { redirect } = await call<{ redirect: string }>(uid, {
        token: token.trim(),
        decision,
        namespaces: [...chosen],
      });
      location.assign(redirect);
    } catch (error) {
      setFailed((error as Error).message);
      setBusy(false);
    }
  };

  const toggle = (name: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    setChosen(next);
  };

  if (!request) {
    return failed ? (
      <article id="consent">
        <h1>Allow access to your memory?</h1>
        <Problem message={failed} />
      </article>
    ) : (
      <Busy />
    );
  }
  const { client } = request;
  return (
    <article id="consent">
      <h1>Allow access to your memory?</h1>
      <p>
        <strong id="client-name">{client.name ?? 'A client with no name'}</strong> asks to read and
        write your memory.
      </p>
      <p class="redirect-host">
        It sends your answer to <strong id="redirect-host">{client.redirect_host ?? '?'}</strong>
        <br />
        <small>
          If you do not know this host, or did not just connect an app, choose Deny. Client id{' '}
          <code>{client.id}</code>.
        </small>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void answer('allow');
        }}
      >
        <fieldset id="namespaces">
          <legend>Namespaces it may use</legend>
          {request.namespaces.length === 0 && (
            <p class="hint">Give the access token below: the namespaces it may give show here.</p>
          )}
          {request.namespaces.map((name) => (
            <label key={name}>
              <input
                type="checkbox"
                name="namespace"
                value={name}
                checked={chosen.has(name)}
                onChange={(e) => toggle(name, e.currentTarget.checked)}
              />
              {name}
            </label>
          ))}
        </fieldset>
        <label>
          Access token
          <input
            type="password"
            name="token"
            autoComplete="off"
            value={token}
            aria-invalid={failed !== null && /token/i.test(failed) ? 'true' : undefined}
            onInput={(e) => setToken(e.currentTarget.value)}
          />
          <small>MNEMO_AUTH_TOKEN, the server's token: it proves the memory is yours.</small>
        </label>
        <Problem message={failed} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Allow
          </button>
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => void answer('deny')}
          >
            Deny
          </button>
        </div>
      </form>
    </article>
  );
}
