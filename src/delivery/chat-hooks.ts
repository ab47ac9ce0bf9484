import { WebhookTargetError } from '../errors.ts';
import { checkWebhookTarget, parseWebhookUrl, type CheckedTarget, type TargetCheckOptions } from './ssrf.ts';

/**
 * Discord and Slack webhook URLs: only the service's own hosts (a configurable list, so tests
 * point at a local stand-in), only their webhook paths, and then the same SSRF check as any
 * webhook target (a listed host that resolves to a private address is still refused).
 */

export type ChatHookChannel = 'discord' | 'slack';

const RULES: Record<ChatHookChannel, { field: string; path: RegExp; shape: string }> = {
  discord: {
    field: 'discord_webhook_url',
    path: /^\/api(\/v\d+)?\/webhooks\/\d{1,30}\/[\w-]{1,200}\/?$/,
    shape: 'https://discord.com/api/webhooks/<id>/<token>',
  },
  slack: {
    field: 'slack_webhook_url',
    path: /^\/services\/[\w-]{1,100}\/[\w-]{1,100}\/[\w-]{1,200}\/?$/,
    shape: 'https://hooks.slack.com/services/T…/B…/…',
  },
};

/**
 * Whether the URL's host is in the list: a bare host entry means https on the default port, an
 * entry with a scheme (`http://127.0.0.1:9000`) is matched on the whole origin.
 */
export function hostAllowed(url: URL, hosts: readonly string[]): boolean {
  return hosts.some((entry) =>
    entry.includes('://') ? safeOrigin(entry) === url.origin : url.protocol === 'https:' && !url.port && url.hostname === entry,
  );
}

const safeOrigin = (entry: string): string | null => {
  try {
    return new URL(entry).origin;
  } catch {
    return null;
  }
};

/** Parses and checks a Discord or Slack webhook URL (host list, path, SSRF); throws a 400 saying why. */
export async function checkChatHook(
  channel: ChatHookChannel,
  raw: string,
  hosts: readonly string[],
  options: TargetCheckOptions = {},
): Promise<CheckedTarget> {
  const rule = RULES[channel];
  let url: URL;
  try {
    url = parseWebhookUrl(raw);
  } catch (err) {
    throw new WebhookTargetError((err as Error).message.replace(/^webhook_url/, rule.field));
  }
  if (!hostAllowed(url, hosts)) {
    throw new WebhookTargetError(
      `${rule.field} must be a ${channel === 'discord' ? 'Discord' : 'Slack'} webhook URL on ${hosts.join(', ')}, such as ${rule.shape}`,
    );
  }
  if (!rule.path.test(url.pathname) || url.username || url.password) {
    throw new WebhookTargetError(
      `${rule.field} is not a ${channel === 'discord' ? 'Discord' : 'Slack'} webhook URL: it should look like ${rule.shape}`,
    );
  }
  try {
    return await checkWebhookTarget(url.href, options);
  } catch (err) {
    throw new WebhookTargetError((err as Error).message.replace(/^webhook_url/, rule.field));
  }
}
