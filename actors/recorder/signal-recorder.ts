import { consume, ensureConsumer, type Bus, type Consuming, type Delivered } from '../../src/bus/index.ts';
import type { Actor } from '../../src/kernel/index.ts';
import type { Logger } from '../../src/log.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Consumers } from '../../schemas/messages.ts';

export interface SignalRecorderDeps {
  bus: Pick<Bus, 'js' | 'jsm' | 'retry'>;
  /** Where signals are kept for ever (the `signals` table's repo): it gathers up to `rowsPerInsert` rows into one insert. */
  repo: { insert(rows: SignalEvent[]): Promise<void>; readonly rowsPerInsert?: number };
  log: Logger;
}

/**
 * Copies every signal from the SIGNALS stream into ClickHouse (the stream keeps 30 days, the
 * table keeps them all). A durable consumer (`signals-store`): a message is acknowledged only once
 * its row is stored, so a restart resumes where the last one stopped; the table's key makes a
 * repeat harmless.
 */
export class SignalRecorder implements Actor<Delivered> {
  private messages: Consuming | null = null;
  private readonly counts = { stored: 0, malformed: 0, failed: 0 };

  constructor(private readonly deps: SignalRecorderDeps) {}

  async start(): Promise<void> {
    await ensureConsumer(this.deps.bus, Consumers.signalsStore);
    // Twice an insert's rows: the next insert's rows arrive while one is written.
    // Not awaited: rows of a burst (1,000 models on one bar) go into one INSERT.
    this.messages = await consume(
      this.deps.bus,
      Consumers.signalsStore,
      2 * (this.deps.repo.rowsPerInsert ?? 250),
      (msg) => void this.handle(msg),
    );
    void this.messages.closed.then((err) => {
      if (err) this.deps.log.error({ err }, 'signal recorder: its consumer ended; signals wait on the stream until the next start');
    });
  }

  /** Stores one signal; acknowledged once stored, redelivered when storing fails. */
  async handle(msg: Delivered): Promise<void> {
    let parsed: ReturnType<typeof SignalEvent.safeParse> | null = null;
    try {
      parsed = SignalEvent.safeParse(msg.json());
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      this.counts.malformed++;
      this.deps.log.warn({ subject: msg.subject }, 'signal recorder: a malformed signal was skipped');
      msg.ack();
      return;
    }
    try {
      await this.deps.repo.insert([parsed.data]);
      this.counts.stored++;
      msg.ack();
    } catch (err) {
      this.counts.failed++;
      this.deps.log.error({ err }, 'signal recorder: storing a signal failed; it is redelivered');
      msg.nak(1000);
    }
  }

  stats() {
    return { ...this.counts };
  }

  async stop(): Promise<void> {
    await this.messages?.close();
  }
}
