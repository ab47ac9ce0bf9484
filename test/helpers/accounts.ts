/** Trial accounts, claims and session cookies over real HTTP, for the sign-in and session tests. */
import assert from 'node:assert/strict';
import type { ApiResponse, TestService } from './service.ts';

let addresses = 0;
/** A client address of its own (the service runs with TRUST_PROXY), so tests do not share throttles. */
export const freshAddress = () => `198.51.${Math.floor(++addresses / 250)}.${addresses % 250}`;

/** The sf_session token a response set ('' when it cleared it). */
export function sessionCookie(res: ApiResponse): string {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sf_session='));
  assert.ok(cookie, `no sf_session cookie in ${JSON.stringify(res.headers.getSetCookie())}`);
  return cookie.split(';')[0]!.slice('sf_session='.length);
}

export interface Trial {
  key: string;
  userId: number;
  username: string;
  /** Headers that send this browser's session cookie (and its address). */
  browser: Record<string, string>;
  address: string;
}

export async function trial(sf: TestService, username?: string): Promise<Trial> {
  const address = freshAddress();
  const res = await sf.api('POST', '/api/v1/key/trial', { body: username ? { username } : {}, headers: { 'x-forwarded-for': address } });
  assert.equal(res.status, 200, res.text);
  return {
    key: res.body.api_key,
    userId: res.body.user_id,
    username: res.body.username,
    browser: { cookie: `sf_session=${sessionCookie(res)}`, 'x-forwarded-for': address },
    address,
  };
}

export const PASSWORD = 'correct horse battery staple';

/** Claims the trial with a password (by its session); the recovery codes shown. */
export async function claimWithPassword(sf: TestService, account: Trial, password = PASSWORD): Promise<string[]> {
  const res = await sf.api('PUT', '/api/v1/auth/password', { body: { password }, headers: account.browser });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.claimed, true);
  account.browser = { ...account.browser, cookie: `sf_session=${sessionCookie(res)}` };
  return res.body.recovery_codes;
}

/** Signs in with the password from a fresh browser at `address`; that browser's headers. */
export async function signInWithPassword(
  sf: TestService,
  username: string,
  password = PASSWORD,
  address = freshAddress(),
): Promise<Record<string, string>> {
  const res = await sf.api('POST', '/api/v1/auth/sign-in/password', {
    body: { username, password },
    headers: { 'x-forwarded-for': address, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' },
  });
  assert.equal(res.status, 200, res.text);
  return { cookie: `sf_session=${sessionCookie(res)}`, 'x-forwarded-for': address };
}
