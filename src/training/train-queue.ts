import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { ensureStream, type Bus } from '../bus/index.ts';
import { Streams, Subjects, TRAINER_CONSUMER } from '../../schemas/messages.ts';
import { TrainJobMessage } from '../../schemas/training.ts';

/**
 * The JOBS work queue: the edge publishes a job id, trainers pull it through one durable
 * consumer. A message stays in the stream until a trainer acknowledges it; a trainer that stops
 * sending heartbeats (`working()`) for ackWait has its job handed out again.
 */
export class TrainQueue {
  private constructor(
    private readonly bus: Bus,
    private readonly ackWaitMs: number,
  ) {}

  static async open(bus: Bus, { ackWaitMs, replicas = 1 }: { ackWaitMs: number; replicas?: number }): Promise<TrainQueue> {
    await ensureStream(bus, Streams.trainJobs, replicas);
    const config = {
      durable_name: TRAINER_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      filter_subject: Subjects.trainJob,
      // Attempts are counted by the trainer (it fails a job after repeated interruptions).
      max_deliver: -1,
    };
    try {
      await bus.jsm.consumers.info(Streams.trainJobs.name, TRAINER_CONSUMER);
      await bus.jsm.consumers.update(Streams.trainJobs.name, TRAINER_CONSUMER, { ack_wait: config.ack_wait });
    } catch {
      await bus.jsm.consumers.add(Streams.trainJobs.name, config);
    }
    return new TrainQueue(bus, ackWaitMs);
  }

  get heartbeatMs(): number {
    return Math.max(200, Math.floor(this.ackWaitMs / 3));
  }

  async publish(jobId: number): Promise<void> {
    await this.bus.js.publish(Subjects.trainJob, JSON.stringify(TrainJobMessage.parse({ job_id: jobId })), {
      msgID: `train-${jobId}`,
    });
  }

  async consumer(): Promise<Consumer> {
    return this.bus.js.consumers.get(Streams.trainJobs.name, TRAINER_CONSUMER);
  }

  /** The job id a message carries, or null for a malformed one. */
  static jobId(msg: JsMsg): number | null {
    try {
      const parsed = TrainJobMessage.safeParse(msg.json());
      return parsed.success ? parsed.data.job_id : null;
    } catch {
      return null;
    }
  }
}
