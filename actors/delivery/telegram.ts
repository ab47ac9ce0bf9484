import { Bot, GrammyError, type Api } from 'grammy';
import { subscribe, type Bus } from '../../src/bus/index.ts';
import { redactToken, telegramMessage, type MessengerPairing } from '../../src/delivery/index.ts';
import type { Logger } from '../../src/log.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { Topics } from '../../schemas/messages.ts';
import type { ChatPacer } from './chat-pacer.ts';
import type { ChannelSender, SendOutcome } from './types.ts';

export interface TelegramBotOptions {
  token: string;
  apiRoot: string;
  mode: 'polling' | 'webhook';
  /** Webhook mode: the public URL Telegram POSTs updates to, and the secret it echoes. */
  webhookUrl?: string;
  webhookSecret?: string;
  pairing: MessengerPairing;
  bus: Pick<Bus, 'nc'>;
  log: Logger;
  /** Delay before trying the Bot API again after a failure to start. */
  restartDelayMs?: number;
}

const HELP =
  'This bot sends the live signals of your signalforge models.\n' +
  'To link this chat: call GET /api/v1/messenger/code with your API key, then send /start <code> here ' +
  '(or open the deep link it returns).';

const chatTitle = (chat: { type: string; title?: string; first_name?: string; last_name?: string; username?: string }): string =>
  chat.title ?? ([chat.first_name, chat.last_name].filter(Boolean).join(' ') || (chat.username ? `@${chat.username}` : chat.type));

/**
 * The Telegram bot: answers `/start <code>` by linking the chat to the code's user, and runs by
 * long polling (default) or, in webhook mode, takes the updates the edge forwards over NATS.
 */
export class TelegramBot {
  readonly bot: Bot;
  private stopped = false;
  private running: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: TelegramBotOptions) {
    this.bot = new Bot(options.token, { client: { apiRoot: options.apiRoot } });
    this.bot.command('start', async (ctx) => {
      const code = ctx.match.trim();
      if (!code) return void (await ctx.reply(HELP));
      const result = await options.pairing.redeem(code, { chatId: String(ctx.chat.id), title: chatTitle(ctx.chat) });
      if (result.ok) {
        await ctx.reply('✅ Linked. Signals of your models deployed with the messenger channel will arrive in this chat.');
      } else {
        await ctx.reply(
          result.reason === 'expired'
            ? '⌛ That code has expired: get a new one with GET /api/v1/messenger/code.'
            : '❓ Unknown code: get one with GET /api/v1/messenger/code and send /start <code>.',
        );
      }
    });
    this.bot.command('help', (ctx) => ctx.reply(HELP));
    this.bot.catch((err) => {
      options.log.warn({ error: this.redact((err.error as Error)?.message ?? String(err.error)) }, 'telegram update handling failed');
    });
  }

  get api(): Api {
    return this.bot.api;
  }

  private redact(text: string): string {
    return redactToken(text, this.options.token);
  }

  /** Starts in the background: a Bot API that is down is retried until it answers or stop(). */
  start(): void {
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    const delay = this.options.restartDelayMs ?? 5_000;
    while (!this.stopped) {
      try {
        await this.bot.init();
        this.options.log.info({ bot: this.bot.botInfo.username, mode: this.options.mode }, 'telegram bot running');
        if (this.options.mode === 'webhook') {
          await this.bot.api.setWebhook(this.options.webhookUrl!, {
            secret_token: this.options.webhookSecret!,
            allowed_updates: ['message'],
          });
          // A queue group: with several delivery processes, each update is handled by one of them.
          const sub = subscribe(
            this.options.bus,
            Topics.telegramUpdate,
            Topics.telegramUpdate.all,
            (update) => {
              // grammY reads the update as Telegram sent it (the edge relays it unchanged).
              void this.bot
                .handleUpdate(update as unknown as Parameters<Bot['handleUpdate']>[0])
                .catch((e: unknown) =>
                  this.options.log.warn({ error: this.redact((e as Error).message) }, 'telegram webhook update failed'),
                );
            },
            undefined,
            'delivery-telegram',
          );
          this.unsubscribe = () => sub.unsubscribe();
          return;
        }
        await this.bot.start({ allowed_updates: ['message'] });
        return;
      } catch (err) {
        if (this.stopped) return;
        this.options.log.warn({ error: this.redact((err as Error).message) }, 'telegram bot failed; trying again');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Stops polling (or the webhook feed); gives up waiting on a Bot API that does not answer after 3 s. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, 3_000)));
    const stopping = (async () => {
      if (this.bot.isRunning()) await this.bot.stop().catch(() => undefined);
      await this.running?.catch(() => undefined);
    })();
    await Promise.race([stopping, grace]);
    clearTimeout(timer);
  }
}

/**
 * Messenger delivery: a signal becomes one HTML message to the deployment's chat (its
 * messenger_chat_id if linked to its owner, else the owner's latest linked chat). Sends are
 * paced per chat and overall; a 429 holds the chat for retry_after and sends the same message again.
 */
export class TelegramSender implements ChannelSender {
  readonly channel = 'messenger' as const;

  constructor(
    private readonly deps: {
      api: Pick<Api, 'sendMessage'>;
      pairing: Pick<MessengerPairing, 'chatFor'>;
      pacer: ChatPacer;
      token: string;
      log: Logger;
    },
  ) {}

  async send(event: SignalEvent, deployment: DeploymentRecord): Promise<SendOutcome> {
    const choice = await this.deps.pairing.chatFor(deployment.user_id, deployment.messenger_chat_id);
    if (!choice.ok) return { ok: false, status: null, error: choice.error };
    const text = telegramMessage(event);
    return this.deps.pacer.run(choice.chatId, async (hold) => {
      for (let tries = 0; ; tries++) {
        try {
          await this.deps.api.sendMessage(choice.chatId, text, { parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
          return { ok: true, status: 200 } as const;
        } catch (err) {
          if (err instanceof GrammyError) {
            if (err.error_code === 429 && tries < 20) {
              const seconds = err.parameters.retry_after ?? 1;
              this.deps.log.info({ chat: choice.chatId, retry_after: seconds }, 'telegram rate limit: holding the chat');
              await hold(seconds * 1000);
              continue;
            }
            return { ok: false, status: err.error_code, error: `Telegram ${err.error_code}: ${err.description}` } as const;
          }
          return {
            ok: false,
            status: null,
            error: redactToken(`Telegram API unreachable: ${(err as Error).message}`, this.deps.token),
          } as const;
        }
      }
    });
  }
}
