/**
 * Paces messages to a chat service with per-chat and overall limits (Telegram: about one
 * message per second per chat, about 30 per second overall). Nothing is dropped: each chat's
 * messages wait in a FIFO queue, and every send reserves the next free slot of the overall rate.
 */
import { liveClock, type Clock } from '../../src/lib/clock.ts';

export interface PacerOptions {
  /** Least time between two sends to one chat. */
  chatIntervalMs: number;
  /** Sends per second over all chats. */
  globalPerSecond: number;
  /** Whose time paces the sends (the machine's clock by default). */
  clock?: Clock;
}

export class ChatPacer {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly lastSend = new Map<string, number>();
  private nextGlobal = 0;

  private readonly clock: Clock;

  constructor(private readonly options: PacerOptions) {
    this.clock = options.clock ?? liveClock;
  }

  /** Queued sends waiting for their turn (all chats). */
  queued = 0;

  /**
   * Runs `send` for `chatId` after the chat's previous sends, at the paced time. `send` may ask
   * to hold the chat for a while (a 429 retry_after) by calling `hold(ms)` before it retries.
   */
  run<T>(chatId: string, send: (hold: (ms: number) => Promise<void>) => Promise<T>): Promise<T> {
    this.queued++;
    const previous = this.tails.get(chatId) ?? Promise.resolve();
    const task = async (): Promise<T> => {
      this.queued--;
      const hold = async (ms: number) => {
        await this.clock.sleep(ms);
        await this.slot(chatId);
      };
      await this.slot(chatId);
      return send(hold);
    };
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(chatId, tail);
    void tail.then(() => {
      if (this.tails.get(chatId) === tail) this.tails.delete(chatId);
    });
    return result;
  }

  /** Waits for the chat's interval and an overall slot, then marks the chat as just sent to. */
  private async slot(chatId: string): Promise<void> {
    const chatReady = (this.lastSend.get(chatId) ?? -Infinity) + this.options.chatIntervalMs;
    if (chatReady > this.clock.now()) await this.clock.sleep(chatReady - this.clock.now());
    const now = this.clock.now();
    const at = Math.max(now, this.nextGlobal);
    this.nextGlobal = at + 1000 / this.options.globalPerSecond;
    if (at > now) await this.clock.sleep(at - now);
    this.lastSend.set(chatId, this.clock.now());
    if (this.lastSend.size > 50_000) this.lastSend.clear();
  }
}
