/**
 * The web app speaks only the public API, like any client: its key in the X-API-Key header. The
 * key lives in this browser's localStorage; the first visit mints a trial key (which also sets the
 * HttpOnly sf_session cookie), and the key is shown in full only then.
 */
const KEY_STORAGE = 'sf_api_key';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const storedKey = (): string | null => localStorage.getItem(KEY_STORAGE);
/** Set once this browser has held a key: the session cookie (HttpOnly, unseen here) may exist. */
const HAD_KEY = 'sf_had_key';
export const storeKey = (key: string) => {
  localStorage.setItem(KEY_STORAGE, key);
  localStorage.setItem(HAD_KEY, '1');
};
export const forgetKey = () => localStorage.removeItem(KEY_STORAGE);
/** This browser signed in (its session cookie, HttpOnly, names an account it may hold no key of). */
export const markSignedIn = () => localStorage.setItem(HAD_KEY, '1');

export interface FreshKey {
  api_key: string;
  credits: number;
  username: string;
  user_id: number;
  is_trial: boolean;
}

/** A key minted in this page view, to be shown once. */
let fresh: FreshKey | null = null;
export const freshKey = () => fresh;

/**
 * The key to call with: the stored one, else a new trial account (silently) — unless this
 * browser's session cookie already names an account whose key it lost: minting would strand its
 * models, so the visitor is sent to rotate the key instead.
 */
export async function ensureKey(): Promise<string> {
  const key = storedKey();
  if (key) return key;
  // Only a browser that held a key can have a session (and a fresh one logs no 401 this way).
  const session = localStorage.getItem(HAD_KEY) ? await fetch('/api/v1/whoami-key') : null;
  if (session?.ok) {
    const me = (await session.json()) as { username: string };
    throw new ApiError(
      401,
      `This browser is signed in as ${me.username} but does not hold its API key: rotate the key on the Account page to use it here.`,
    );
  }
  const res = await fetch('/api/v1/key/trial', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const body = await res.json();
  if (!res.ok) throw new ApiError(res.status, body.error ?? `trial key: HTTP ${res.status}`);
  fresh = body as FreshKey;
  storeKey(fresh.api_key);
  return fresh.api_key;
}

/** A request to the API with the key; throws ApiError with the service's message on failure. */
export async function call<T = any>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<T> {
  const res = await send(method, path, body, init);
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) throw new ApiError(res.status, parsed?.error ?? `HTTP ${res.status}`);
  return parsed as T;
}

/** The raw response (for SSE streams). */
export async function send(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<Response> {
  const key = await ensureKey();
  const headers: Record<string, string> = { 'x-api-key': key, ...(init.headers as Record<string, string>) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { ...init, method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401) {
    // The stored key no longer works (rotated elsewhere): forget it so the next call starts afresh.
    forgetKey();
  }
  return res;
}

export async function publicGet<T = any>(path: string): Promise<T> {
  const res = await fetch(path);
  const body = await res.json();
  if (!res.ok) throw new ApiError(res.status, body.error ?? `HTTP ${res.status}`);
  return body as T;
}

/** "sf_abcd…wxyz": how a key is shown after the first time. */
export const maskKey = (key: string) => `${key.slice(0, 7)}…${key.slice(-4)}`;

/**
 * A call to the sign-in and session routes (/api/v1/auth/…) as this browser's session — the cookie
 * alone, no key: a claimed account's credentials change only from a fresh browser sign-in. A trial
 * browser that holds its key but lost its cookie is identified by the key instead.
 */
export async function sessionCall<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const request = (headers: Record<string, string>) =>
    fetch(path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let res = await request({});
  const key = storedKey();
  if (res.status === 401 && key) res = await request({ 'x-api-key': key });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) throw new ApiError(res.status, parsed?.error ?? `HTTP ${res.status}`);
  return parsed as T;
}
