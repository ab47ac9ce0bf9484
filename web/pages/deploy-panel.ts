/** Deploy controls of the model page: webhook (secret shown once, optional bridge template), Discord, Slack, e-mail, Telegram pairing, the SSE link. */
import { call } from '../lib/api.ts';
import { h, mount } from '../lib/dom.ts';
import { deliveriesBox } from './deliveries.ts';

interface Deployed {
  model: string;
  channels: string[];
  webhook_url: string | null;
  webhook_template: string | null;
  /** Shown without its token / secret path: the page cannot fill the URL in again. */
  discord_webhook_url: string | null;
  slack_webhook_url: string | null;
  email_to: string | null;
}

/** GET /api/v1/email: whether this server mails, and the account's address. */
interface EmailStatus {
  available: boolean;
  unavailable_reason: string | null;
  status: 'none' | 'pending' | 'confirmed' | 'unsubscribed';
  address: string | null;
  pending_address: string | null;
}

export function deployPanel(stem: string): HTMLElement {
  const box = h('div', { class: 'deploy', id: 'deploy' });
  void render(box, stem);
  return box;
}

async function render(box: HTMLElement, stem: string, secret?: string): Promise<void> {
  const { deployed } = await call<{ deployed: Deployed[] }>('GET', '/api/v1/deployed');
  const mine = deployed.find((d) => d.model === stem);
  const url = h('input', {
    type: 'url',
    placeholder: 'https://your.server/hook',
    class: 'wide',
    value: mine?.webhook_url ?? '',
  }) as HTMLInputElement;
  // Telegram goes to the chat paired below (the API refuses it, saying so, before a chat is linked).
  const toTelegram = h('input', {
    type: 'checkbox',
    id: 'deploy-telegram',
    checked: mine?.channels.includes('messenger') ?? false,
  }) as HTMLInputElement;
  const template = h('textarea', {
    rows: 2,
    class: 'wide',
    placeholder: '{"action":"{{order}}","ticker":"{{symbol}}","price":{{price}}}  (optional: the body an execution bridge takes)',
  }) as HTMLTextAreaElement;
  template.value = mine?.webhook_template ?? '';
  const discord = h('input', {
    type: 'url',
    class: 'wide',
    placeholder: mine?.discord_webhook_url ?? 'https://discord.com/api/webhooks/…',
  }) as HTMLInputElement;
  const slack = h('input', {
    type: 'url',
    class: 'wide',
    placeholder: mine?.slack_webhook_url ?? 'https://hooks.slack.com/services/…',
  }) as HTMLInputElement;
  const status = h('p', { class: 'muted' });
  const email = await call<EmailStatus>('GET', '/api/v1/email').catch(() => null);
  // Only a confirmed address can be ticked: the API refuses the channel before (422, saying so).
  const toEmail = h('input', {
    type: 'checkbox',
    id: 'deploy-email',
    checked: email?.status === 'confirmed' && (mine?.channels.includes('email') ?? false),
    disabled: email?.status !== 'confirmed',
  }) as HTMLInputElement;
  const deploy = async () => {
    try {
      const channels = [
        'sse',
        ...(url.value ? ['webhook'] : []),
        ...(toTelegram.checked ? ['messenger'] : []),
        ...(discord.value ? ['discord'] : []),
        ...(slack.value ? ['slack'] : []),
        ...(toEmail.checked ? ['email'] : []),
      ];
      const body = {
        model_name: stem,
        channels,
        ...(url.value ? { webhook_url: url.value } : {}),
        ...(url.value && template.value.trim() ? { webhook_template: template.value.trim() } : {}),
        ...(discord.value ? { discord_webhook_url: discord.value } : {}),
        ...(slack.value ? { slack_webhook_url: slack.value } : {}),
      };
      const res = await call<{ webhook_secret?: string }>('POST', '/api/v1/deploy', body);
      await render(box, stem, res.webhook_secret);
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  const undeploy = async () => {
    await call('DELETE', `/api/v1/deploy/${encodeURIComponent(stem)}`);
    await render(box, stem);
  };
  const streamUrl = `${location.origin}/api/v1/signals/${encodeURIComponent(stem)}/stream`;
  mount(
    box,
    h('p', {}, mine ? `Deployed on ${mine.channels.join(', ')}.` : 'Not deployed.'),
    h('label', {}, 'Webhook URL ', url),
    h('label', {}, 'Webhook body template ', template),
    h('label', {}, 'Discord webhook URL ', discord),
    h('label', {}, 'Slack webhook URL ', slack),
    mine?.discord_webhook_url || mine?.slack_webhook_url
      ? h(
          'p',
          { class: 'muted' },
          'Discord and Slack webhook URLs are secrets and are not shown again: paste them again to keep them when you redeploy.',
        )
      : null,
    h('label', {}, toTelegram, ' Telegram (the paired chat)'),
    emailControls(email, toEmail),
    h('button', { type: 'button', onclick: () => void deploy() }, mine ? 'Redeploy' : 'Deploy'),
    mine ? h('button', { type: 'button', class: 'secondary', onclick: () => void undeploy() }, 'Undeploy') : null,
    secret
      ? h(
          'div',
          { class: 'notice' },
          h('p', {}, 'Webhook signing secret, shown only this once:'),
          h('code', { class: 'key' }, secret),
          h('button', { type: 'button', onclick: () => void navigator.clipboard?.writeText(secret) }, 'Copy'),
          h(
            'pre',
            { class: 'code' },
            `// Verify a delivery (npm i standardwebhooks)\nimport { Webhook } from 'standardwebhooks';\nconst payload = new Webhook('${secret}').verify(rawBody, headers);`,
          ),
        )
      : null,
    status,
    h('p', {}, 'SSE: ', h('code', {}, `curl -N -H "X-API-Key: $SF_KEY" ${streamUrl}`)),
    telegram(),
    mine ? deliveriesBox(stem) : null,
  );
}

function telegram(): HTMLElement {
  const box = h(
    'div',
    { class: 'telegram' },
    h('button', { type: 'button', class: 'secondary', onclick: () => void pair() }, 'Pair Telegram'),
  );
  const pair = async () => {
    const code = await call<any>('GET', '/api/v1/messenger/code');
    if (!code.enabled) return mount(box, h('p', { class: 'muted' }, `Telegram: ${code.message}`));
    mount(
      box,
      h('p', {}, `Telegram: ${code.status}`, code.chat_id ? ` (chat ${code.chat_id})` : ''),
      code.code
        ? h(
            'p',
            {},
            'Send ',
            h('code', {}, `/start ${code.code}`),
            ` to @${code.bot_username}`,
            code.deep_link ? [' or ', h('a', { href: code.deep_link, rel: 'noopener' }, 'open the bot')] : '',
          )
        : null,
    );
  };
  return box;
}

/** The e-mail channel: unavailable (and why), the confirmed address to tick, or the form that mails a confirmation link. */
function emailControls(email: EmailStatus | null, toEmail: HTMLInputElement): HTMLElement {
  if (!email) return h('p', { class: 'muted' }, 'E-mail: the address could not be read.');
  if (!email.available)
    return h('p', { class: 'muted' }, `E-mail: unavailable — ${email.unavailable_reason ?? 'this server sends no e-mail'}.`);
  const box = h('div', { class: 'email' });
  const address = h('input', { type: 'email', placeholder: 'you@example.com', value: email.pending_address ?? '' }) as HTMLInputElement;
  const said = h('span', { class: 'muted' });
  const register = async () => {
    try {
      const res = await call<{ message: string }>('POST', '/api/v1/email', { address: address.value });
      said.textContent = ` ${res.message}; then reload this page to tick e-mail.`;
    } catch (err) {
      said.textContent = ` ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  const state =
    email.status === 'confirmed'
      ? h('label', {}, toEmail, ` E-mail (${email.address})`)
      : h(
          'p',
          { class: 'muted' },
          email.status === 'pending'
            ? `E-mail: follow the link mailed to ${email.pending_address} to confirm it.`
            : email.status === 'unsubscribed'
              ? `E-mail: ${email.address} unsubscribed; confirm an address again to receive signals.`
              : 'E-mail: confirm an address to receive signals by mail.',
        );
  mount(
    box,
    state,
    h('label', {}, email.status === 'confirmed' ? 'Another address ' : 'Address ', address),
    h('button', { type: 'button', class: 'secondary', onclick: () => void register() }, 'Mail me a confirmation link'),
    said,
  );
  return box;
}
