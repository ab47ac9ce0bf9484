import type { JsonKv } from '../bus/index.ts';
import { RateLimitedError } from '../errors.ts';
import type { WindowRecord } from '../../schemas/messages.ts';

const HOUR_MS = 3_600_000;

/**
 * Trial keys per client IP per rolling hour. Kept in NATS KV, not memory, so the limit holds
 * across restarts and across every edge process.
 */
export class MintLimiter {
  constructor(
    private readonly windows: JsonKv<typeof WindowRecord>,
    private readonly perHour: number,
  ) {}

  async take(clientIp: string, now = Date.now()): Promise<void> {
    const key = `mint.${Buffer.from(clientIp).toString('base64url')}`;
    await this.windows.mutate(key, (current) => {
      const recent = (current?.stamps ?? []).filter((t) => now - t < HOUR_MS);
      if (recent.length >= this.perHour) {
        throw new RateLimitedError(
          `too many trial keys from this address: at most ${this.perHour} per hour`,
          (recent[0]! + HOUR_MS - now) / 1000,
        );
      }
      return { stamps: [...recent, now] };
    });
  }
}
