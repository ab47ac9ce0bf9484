import { ensureConsumer, ensureStream, publish, puller, type Bus, type Delivered, type Puller } from '../bus/index.ts';
import { Consumers, Streams, Topics } from '../../schemas/messages.ts';
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
    await ensureConsumer(bus, Consumers.trainer, { ackWaitMs });
    return new TrainQueue(bus, ackWaitMs);
  }

  get heartbeatMs(): number {
    return Math.max(200, Math.floor(this.ackWaitMs / 3));
  }

  async publish(jobId: number): Promise<void> {
    await publish(this.bus, Topics.trainJob, [], { job_id: jobId }, { msgID: `train-${jobId}` });
  }

  async consumer(): Promise<Puller> {
    return puller(this.bus, Consumers.trainer);
  }

  /** The job id a message carries, or null for a malformed one. */
  static jobId(msg: Pick<Delivered, 'json'>): number | null {
    try {
      const parsed = TrainJobMessage.safeParse(msg.json());
      return parsed.success ? parsed.data.job_id : null;
    } catch {
      return null;
    }
  }
}
