import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import type { Bus } from '../../src/bus/index.ts';
import type { Logger } from '../../src/log.ts';
import type { SignalsRepo } from '../../src/store/index.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Streams } from '../../schemas/messages.ts';

const CONSUMER = 'signals-store';

/**
 * Copies every signal from the SIGNALS stream into ClickHouse (the stream keeps 30 days, the
 * table keeps them all). A durable consumer: a message is acknowledged only once its row is
 * stored, so a restart resumes where the last one stopped; the table's key makes a repeat harmless.
 */
export class SignalRecorder {
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly repo: Pick<SignalsRepo, 'insert'>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { jsm, js } = this.bus;
    try {
      await jsm.consumers.info(Streams.signals.name, CONSUMER);
    } catch {
      await jsm.consumers.add(Streams.signals.name, { durable_name: CONSUMER, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
    }
    const consumer = await js.consumers.get(Streams.signals.name, CONSUMER);
    this.messages = await consumer.consume({ max_messages: 500 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        const parsed = SignalEvent.safeParse(msg.json());
        if (!parsed.success) {
          this.log.warn({ subject: msg.subject }, 'signal recorder: a malformed signal was skipped');
          msg.ack();
          continue;
        }
        // Not awaited: rows of a burst (1,000 models on one bar) go into one INSERT.
        this.repo.insert([parsed.data]).then(
          () => msg.ack(),
          (err: unknown) => {
            this.log.error({ err }, 'signal recorder: storing a signal failed; it is redelivered');
            msg.nak(1000);
          },
        );
      }
    })();
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }
}
