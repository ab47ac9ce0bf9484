import { randomInt } from 'node:crypto';
import type { JsonKv } from '../bus/index.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { MessengerCodeLinkable, MessengerLinkRecord } from '../../schemas/delivery.ts';
import type { DeliveryBuckets } from '../../schemas/messages.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** Unambiguous characters (no 0/O, 1/I/L): a code is easy to read aloud and to type. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;
export const CODE_TTL_MS = 10 * 60_000;
/** Chats one user may link; linking one more forgets the oldest. */
export const MAX_CHATS = 10;

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

export interface PairingDeps {
  codes: JsonKv<typeof DeliveryBuckets.pairingCodes.schema>;
  links: JsonKv<typeof DeliveryBuckets.messengerLinks.schema>;
  /** The bot's @username (without @), for the deep link. */
  botUsername: () => Promise<string>;
  clock?: Clock;
}

export type RedeemResult = { ok: true; userId: number } | { ok: false; reason: 'unknown' | 'expired' };
export type ChatChoice = { ok: true; chatId: string } | { ok: false; error: string };

const EMPTY: MessengerLinkRecord = { code: null, code_expires_at: null, chats: [] };

/**
 * Messenger pairing: the API hands a user a short-lived code; the user sends `/start <code>` to
 * the bot from a chat, and that chat is linked to the user. Codes and links live in KV, so the
 * edge and the bot may run in different processes.
 */
export class MessengerPairing {
  private readonly clock: Clock;

  constructor(private readonly deps: PairingDeps) {
    this.clock = deps.clock ?? liveClock;
  }

  /** The user's pairing status with a valid code (a new one when asked, or when none is linked yet). */
  async code(userId: number, options: { renew?: boolean } = {}): Promise<MessengerCodeLinkable> {
    const bot = await this.deps.botUsername();
    const key = String(userId);
    const current = (await this.deps.links.get(key))?.value ?? EMPTY;
    const now = this.clock.now();
    const valid = current.code !== null && (current.code_expires_at ?? 0) > now;
    let record = current;
    if (options.renew || (!valid && current.chats.length === 0)) {
      const code = await this.mint(userId, now);
      if (valid && current.code) await this.deps.codes.delete(current.code).catch(() => undefined);
      record = (await this.deps.links.mutate(key, (r) => ({ ...(r ?? EMPTY), code, code_expires_at: now + CODE_TTL_MS }))).value;
    } else if (!valid && current.code !== null) {
      record = { ...current, code: null, code_expires_at: null };
    }
    const latest = record.chats.at(-1);
    return {
      enabled: true,
      status: record.chats.length > 0 ? 'linked' : 'pending',
      code: record.code,
      deep_link: record.code ? `https://t.me/${bot}?start=${record.code}` : null,
      bot_username: bot,
      expires_at: record.code_expires_at ? isoFromMs(record.code_expires_at) : null,
      chat_id: latest?.chat_id ?? null,
      chats: record.chats.map((c) => ({ chat_id: c.chat_id, title: c.title, linked_at: isoFromMs(c.linked_at) })),
    };
  }

  private async mint(userId: number, now: number): Promise<string> {
    for (let i = 0; i < 10; i++) {
      const code = newPairingCode();
      if ((await this.deps.codes.create(code, { user_id: userId, created_at: now, expires_at: now + CODE_TTL_MS })) !== false) return code;
    }
    throw new Error('could not mint a unique pairing code');
  }

  /** Links the chat that sent `/start <code>` to the code's user; a code works once. */
  async redeem(rawCode: string, chat: { chatId: string; title: string }): Promise<RedeemResult> {
    const code = rawCode.trim().toUpperCase();
    if (!/^[A-Z0-9]{4,16}$/.test(code)) return { ok: false, reason: 'unknown' };
    const found = await this.deps.codes.get(code);
    if (!found) return { ok: false, reason: 'unknown' };
    const now = this.clock.now();
    if (found.value.expires_at <= now) return { ok: false, reason: 'expired' };
    // Only the writer that deletes the code at the revision it read may use it.
    try {
      await this.deps.codes.kv.delete(code, { previousSeq: found.revision });
    } catch {
      return { ok: false, reason: 'unknown' };
    }
    const userId = found.value.user_id;
    await this.deps.links.mutate(String(userId), (r) => {
      const base = r ?? EMPTY;
      const chats = [
        ...base.chats.filter((c) => c.chat_id !== chat.chatId),
        { chat_id: chat.chatId, title: chat.title.slice(0, 120), linked_at: now },
      ];
      return {
        code: base.code === code ? null : base.code,
        code_expires_at: base.code === code ? null : base.code_expires_at,
        chats: chats.slice(-MAX_CHATS),
      };
    });
    return { ok: true, userId };
  }

  /**
   * Where a deployment's messenger signals go: the requested chat when it is linked to the user,
   * else the most recently linked chat.
   */
  async chatFor(userId: number, requested: string | null): Promise<ChatChoice> {
    const chats = (await this.deps.links.get(String(userId)))?.value.chats ?? [];
    if (requested) {
      if (chats.some((c) => c.chat_id === requested)) return { ok: true, chatId: requested };
      return {
        ok: false,
        error: `messenger_chat_id ${requested} is not linked to this account: send /start <code> to the bot from that chat (GET /api/v1/messenger/code)`,
      };
    }
    const latest = chats.at(-1);
    if (!latest)
      return { ok: false, error: 'no Telegram chat linked: get a code with GET /api/v1/messenger/code and send /start <code> to the bot' };
    return { ok: true, chatId: latest.chat_id };
  }
}
