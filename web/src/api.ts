// The page's one way to the server: fetch with the bearer token of this tab, JSON both ways.
const TOKEN_KEY = 'mnemo.token';
const NAMESPACE_KEY = 'mnemo.namespace';

/** An answer other than 2xx: its status and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  setToken(token: string | null) {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
  namespace: (): string | null => sessionStorage.getItem(NAMESPACE_KEY),
  setNamespace(name: string | null) {
    if (name) sessionStorage.setItem(NAMESPACE_KEY, name);
    else sessionStorage.removeItem(NAMESPACE_KEY);
  },
};

/**
 * Takes `#token=...` out of the address (it never reached the server) into this tab's session
 * storage, and leaves the address without it, so it is in no history entry or bookmark.
 */
export function adoptTokenFromFragment(): void {
  const match = /^#token=([^&]*)/.exec(location.hash);
  if (!match) return;
  session.setToken(decodeURIComponent(match[1] ?? ''));
  history.replaceState(null, '', `${location.pathname}${location.search}#/memories`);
}

/** A call of the page API: GET without a body, POST with one, or the method given. */
export async function api<T>(path: string, body?: unknown, method?: 'DELETE'): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  const namespace = session.namespace();
  if (namespace) headers['x-mnemo-namespace'] = namespace;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/ui/api${path}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    credentials: 'omit',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json().catch(() => null)) as {
    error?: { message?: string };
  } | null;
  if (!res.ok) {
    throw new ApiError(res.status, data?.error?.message ?? `the server answered ${res.status}`);
  }
  return data as T;
}

const early = new Map<string, Promise<unknown>>();

/** Asks for `path` at once, before the component that shows it is drawn (the first list). */
export function prefetch(path: string): void {
  const answer = api(path);
  answer.catch(() => {});
  early.set(path, answer);
}

/** What `path` answers: an early answer once, if it was asked for and came back well. */
export function fetchOnce<T>(path: string): Promise<T> {
  const answer = early.get(path);
  early.delete(path);
  return answer ? (answer as Promise<T>).catch(() => api<T>(path)) : api<T>(path);
}
