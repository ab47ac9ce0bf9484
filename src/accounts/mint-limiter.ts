import type { JsonKv } from '../bus/index.ts';
import { MintLimitedError } from '../errors.ts';
import type { WindowRecord } from '../../schemas/account-records.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

const HOUR_MS = 3_600_000;

/**
 * The unit the limit applies to: an IPv4 address, or an IPv6 /64 (one subscriber usually holds a
 * whole /64, so counting single IPv6 addresses would be no limit at all). IPv4-mapped IPv6
 * addresses count as the IPv4 address they carry.
 */
export function clientBlock(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headGroups, ...Array(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Trial keys per client IP per rolling hour. Kept in NATS KV, not memory, so the limit holds
 * across restarts and across every edge process.
 */
export class MintLimiter {
  private readonly clock: Clock;

  constructor(
    private readonly windows: JsonKv<typeof WindowRecord>,
    private readonly perHour: number,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  async take(clientIp: string, now = this.clock.now()): Promise<void> {
    const key = `mint.${Buffer.from(clientBlock(clientIp)).toString('base64url')}`;
    await this.windows.mutate(key, (current) => {
      const recent = (current?.stamps ?? []).filter((t) => now - t < HOUR_MS);
      if (recent.length >= this.perHour) {
        throw new MintLimitedError(
          `too many trial keys from this address: at most ${this.perHour} per hour`,
          (recent[0]! + HOUR_MS - now) / 1000,
        );
      }
      return { stamps: [...recent, now] };
    });
  }
}
