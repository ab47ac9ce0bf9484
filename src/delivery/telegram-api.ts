import { Api } from 'grammy';

export interface TelegramSettings {
  token: string;
  apiRoot: string;
}

/** Removes the bot token from a message (client errors may quote the request URL). */
export function redactToken(text: string, token: string): string {
  return token ? text.split(token).join('[token]') : text;
}

/**
 * The bot's @username (without @), asked once from getMe and remembered; a failed ask is
 * retried on the next call.
 */
export function botUsernameSource(settings: TelegramSettings): () => Promise<string> {
  const api = new Api(settings.token, { apiRoot: settings.apiRoot });
  let cached: Promise<string> | null = null;
  return () => {
    cached ??= api.getMe().then(
      (me) => me.username,
      (err: unknown) => {
        cached = null;
        throw new Error(redactToken(`getMe failed: ${(err as Error).message}`, settings.token));
      },
    );
    return cached;
  };
}
