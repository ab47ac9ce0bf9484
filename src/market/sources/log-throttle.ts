import type { Logger } from '../../log.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

type Fields = Record<string, unknown> | (() => Record<string, unknown>);

/**
 * Rate-limited log lines: a feed that turns bad can send thousands of broken messages a second,
 * and one log line per message would drown the log (and cost more than the messages). Per key,
 * the first event is logged at once, then at most one line per interval carrying how many
 * events it stands for. `fields` may be a function, so costly details (a zod explanation) are
 * built only for lines actually written.
 */
export class LogThrottle {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  private readonly clock: Clock;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = 5000,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  warn(key: string, fields: Fields, message: string): void {
    this.emit('warn', key, fields, message);
  }

  error(key: string, fields: Fields, message: string): void {
    this.emit('error', key, fields, message);
  }

  private emit(level: 'warn' | 'error', key: string, fields: Fields, message: string): void {
    const t = this.clock.now();
    const entry = this.last.get(key);
    if (entry && t - entry.at < this.intervalMs) {
      entry.suppressed++;
      return;
    }
    const suppressed = entry?.suppressed ?? 0;
    this.last.set(key, { at: t, suppressed: 0 });
    const details = typeof fields === 'function' ? fields() : fields;
    this.log[level](suppressed > 0 ? { ...details, suppressed } : details, message);
  }
}
