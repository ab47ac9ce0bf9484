import { Sessions, type Accounts, type SessionInfo } from '../../accounts/index.ts';
import { SessionNotFoundError } from '../../errors.ts';
import { RevokedResponse, SessionList, SessionParams } from '../../../schemas/sign-in.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { requireUser } from '../plugins/auth.ts';
import { readCookie, renewSession, SESSION_COOKIE } from '../plugins/session.ts';
import type { App } from '../types.ts';

export interface SessionRoutesDeps {
  accounts: Pick<Accounts, 'directory'>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The account's browser sessions: list, end one, end all the others. Only the caller's own account is ever read. */
export function sessionRoutes(app: App, { accounts }: SessionRoutesDeps): void {
  const { directory } = accounts;

  app.get('/api/v1/auth/sessions', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'Your browser sessions',
      description:
        'The live sessions of your account (device from the User-Agent, created, last seen), most recently used first; ' +
        '`current` marks the session of this request. Sessions older than this release are not listed (they end with "revoke all").',
      response: { 200: SessionList },
    },
    handler: async (request) => {
      const user = requireUser(request);
      const token = readCookie(request, SESSION_COOKIE);
      const currentId = request.browserSession?.id ?? (token ? Sessions.idOfToken(token) : null);
      const show = (s: SessionInfo) => ({
        id: s.id,
        device: s.device,
        created_at: iso(s.created_at),
        last_seen_at: iso(s.last_seen_at),
        current: s.id === currentId,
      });
      return { sessions: (await directory.sessions.list(user.user_id)).map(show) };
    },
  });

  app.delete('/api/v1/auth/sessions/:session_id', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'End one session',
      description:
        'Ends the session of that id (as listed) at once, wherever it is used. 404 when your account has no live session of that id.',
      params: SessionParams,
      response: { 200: RevokedResponse, 404: ErrorBody },
    },
    handler: async (request) => {
      const user = requireUser(request);
      if (!(await directory.sessions.revoke(user.user_id, request.params.session_id))) {
        throw new SessionNotFoundError(
          `your account has no live session ${request.params.session_id}: list them with GET /api/v1/auth/sessions`,
        );
      }
      return { revoked: 1 };
    },
  });

  app.delete('/api/v1/auth/sessions', {
    config: { auth: 'key-or-session' },
    schema: {
      tags: ['sign-in'],
      summary: 'End every other session',
      description:
        'Signs every browser out of your account except the one asking (it gets a new cookie; to sign it out too, POST /api/v1/logout). ' +
        'The API key is untouched (rotate it with POST /api/v1/key/generate).',
      response: { 200: RevokedResponse },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const before = (await directory.sessions.list(user.user_id)).filter((s) => s.id !== request.browserSession?.id).length;
      await directory.endAllSessions(user.user_id);
      await renewSession(request, reply, directory);
      return { revoked: before };
    },
  });
}
