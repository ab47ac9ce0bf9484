/**
 * What is shown of a Discord or Slack webhook URL (delivery status, the deployed list): the URL
 * itself is a credential (anyone holding it can post), so only its origin and, for Discord, the
 * webhook id — never the token.
 */
export function chatHookTarget(channel: 'discord' | 'slack', raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (channel === 'discord') {
      const id = /\/webhooks\/(\d+)\//.exec(url.pathname)?.[1];
      return id ? `${url.origin}/api/webhooks/${id}/…` : url.origin;
    }
    return url.origin;
  } catch {
    return null;
  }
}
