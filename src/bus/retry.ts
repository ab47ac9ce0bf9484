import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../log.ts';
import { isTransientBusError } from './transient.ts';

/** How long to pause between tries: doubling from `firstMs`, never past `capMs`. */
export interface Backoff {
  firstMs: number;
  capMs: number;
}

/** Start-up's pace: a quick second try (a leader election is over in a second or two), at most 10 s apart. */
export const STARTUP_BACKOFF: Backoff = { firstMs: 250, capMs: 10_000 };

/**
 * The pause before try `attempt + 1` (`attempt` counts from 0): the doubled ceiling, of which
 * a random half is dropped ("equal jitter"), so that roles started together do not ask again in
 * step, while no pause shrinks to nothing.
 */
export function backoffMs(attempt: number, backoff: Backoff = STARTUP_BACKOFF, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.capMs, backoff.firstMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Errors that a cluster missing a node, or still electing its leaders, gives for a while — besides
 * the bus's transient ones: the placement of a replicated stream waits for enough nodes, a stream
 * two roles create at once is "already in use" for the slower one (its next try updates it), and
 * a stream or consumer made a moment before is "not found" by a meta leader elected since that has
 * not caught up (a fresh cluster: it once ended an ingest started with ten other roles). Every
 * step that reads a stream or consumer runs after the step that ensures it; one nobody makes is
 * waited for, named by `/_readyz` and in each try's log line.
 */
const STARTUP_TRANSIENT =
  /no suitable peers|insufficient resources|jetstream not (enabled|ready)|temporarily unavailable|already in use|leader|timed? ?out|no responders|(stream|consumer) not found/i;

/** Whether a start-up step that failed so should be tried again (never a request the server refused for good). */
export function isStartupTransient(err: unknown): boolean {
  if (isTransientBusError(err)) return true;
  const e = err as { message?: string; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (STARTUP_TRANSIENT.test(e.message ?? '')) return true;
  return e.cause !== undefined && e.cause !== err ? isStartupTransient(e.cause) : false;
}

/** What a step does and to what: `{ op: 'watch', kind: 'kv', name: 'accounts' }` is waited for as "kv accounts". */
export interface Step {
  op: string;
  kind: 'nats' | 'jetstream' | 'stream' | 'kv' | 'consumer' | 'object store' | 'role';
  name: string;
}

export const stepLabel = (step: Step) => `${step.kind} ${step.name}`;

export interface RetryOptions {
  /** Which failures are tried again (default: isStartupTransient); any other is thrown at once. */
  transient?: (err: unknown) => boolean;
  /** Left out of `waitingFor` (a step that only wraps others). */
  unlisted?: boolean;
  /**
   * Goes on when the attached connection is closed (a role's whole start, which closes its failed
   * attempt's connection and opens another); by default a closed connection ends the waiting.
   */
  pastClose?: boolean;
}

/**
 * The one retry of the bus's start-up steps (connect, JetStream, streams, buckets, consumers,
 * watches, object stores) and of a role's start as a whole: a failure the cluster will get over
 * (a node down, a leader being elected, a request timing out) is tried again with backoff and
 * jitter for as long as it takes, each try logged with the step, its stream or bucket and the
 * server it went to. `waitingFor` is what a readiness probe reports meanwhile.
 */
export class BusRetry {
  private readonly pending = new Map<string, number>();
  private nc: NatsConnection | null = null;
  /** The server last connected to: named while the connection is between servers. */
  private lastServer: string | null = null;

  constructor(
    private readonly log: Logger,
    private readonly backoff: Backoff = STARTUP_BACKOFF,
  ) {}

  /** The connection the steps go through, once there is one: its server is named in the logs, and its close ends the waiting. */
  attach(nc: NatsConnection): void {
    this.nc = nc;
    this.lastServer = nc.info?.server_name ?? null;
  }

  /** The steps under way now (each once), in the order they began. */
  waitingFor(): string[] {
    return [...this.pending.keys()];
  }

  async run<T>(step: Step, attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
    const transient = options.transient ?? isStartupTransient;
    const label = stepLabel(step);
    if (!options.unlisted) this.pending.set(label, (this.pending.get(label) ?? 0) + 1);
    try {
      for (let tries = 0; ; tries++) {
        try {
          return await attempt();
        } catch (err) {
          // A closed connection answers nothing ever again: the process is stopping.
          if (!transient(err) || (!options.pastClose && this.nc?.isClosed())) throw err;
          const pauseMs = backoffMs(tries, this.backoff);
          const connected = this.nc?.info?.server_name;
          if (connected) this.lastServer = connected;
          this.log.warn(
            {
              op: step.op,
              [step.kind]: step.name,
              server: this.lastServer,
              connected: connected !== undefined,
              server_url: this.nc && !this.nc.isClosed() ? this.nc.getServer() : null,
              attempt: tries + 1,
              retry_in_ms: pauseMs,
              err: `${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`,
            },
            `${label}: ${step.op} failed (${(err as Error)?.message ?? err}); trying again`,
          );
          await new Promise((r) => setTimeout(r, pauseMs));
        }
      }
    } finally {
      if (!options.unlisted) {
        const left = (this.pending.get(label) ?? 1) - 1;
        if (left > 0) this.pending.set(label, left);
        else this.pending.delete(label);
      }
    }
  }
}
