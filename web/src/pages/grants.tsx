// The OAuth grants (claude.ai, ChatGPT…): who may reach the memory, where, since when, and a
// Revoke button. Shown only when the server has OAuth on (its grants API answers) and the token
// is the admin's (the API refuses any other with 403).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type ApiError, api } from '../api.js';
import { Notice, Problem } from '../components.js';
import { date } from '../format.js';
import { confirmed } from '../hooks.js';

export interface Grant {
  id: string;
  client: { id: string; name: string | null };
  namespaces: string[];
  created: number | null;
  expires: number | null;
  last_used: number | null;
}

const when = (t: number | null) => (t === null ? '—' : date(t));

export function OAuthGrants() {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(() => {
    api<{ grants: Grant[] }>('/oauth/grants').then(
      (answer) => setGrants(answer.grants),
      (error: ApiError) => {
        // No OAuth on this server (404), or not the admin token (403): nothing to show.
        if (error.status === 404 || error.status === 403) setGrants(null);
        else setFailed(error.message);
      },
    );
  }, []);
  useEffect(load, []);
  if (grants === null) return failed ? <Problem message={failed} /> : null;
  const revoke = async (grant: Grant) => {
    setNotice(null);
    setFailed(null);
    const name = grant.client.name ?? grant.client.id;
    const done = await confirmed(
      `Revoke ${name}'s access? Its tokens stop working at once; it must ask you again.`,
      () => api(`/oauth/grants/${encodeURIComponent(grant.id)}`, {}, 'DELETE'),
      (message) => setFailed(message),
    );
    if (done) {
      setNotice(`${name}: revoked.`);
      load();
    }
  };
  return (
    <section>
      <h2>Connected apps (OAuth)</h2>
      <Notice message={notice} />
      <Problem message={failed} />
      {grants.length === 0 ? (
        <p id="grants-none">No app has access: connect one at /connect/mcp.</p>
      ) : (
        <div class="table-wrap">
          <table class="striped" id="grants">
            <thead>
              <tr>
                <th>App</th>
                <th>Namespaces</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {grants.map((grant) => (
                <tr key={grant.id}>
                  <td>
                    {grant.client.name ?? 'no name'} <small>{grant.client.id}</small>
                  </td>
                  <td>{grant.namespaces.join(', ')}</td>
                  <td>{when(grant.created)}</td>
                  <td>{when(grant.expires)}</td>
                  <td>{when(grant.last_used)}</td>
                  <td>
                    <button type="button" class="outline" onClick={() => revoke(grant)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
