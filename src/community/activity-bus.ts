import { publish, publishBatched, type PublishVia, type StreamBatcher } from '../bus/index.ts';
import type { ActivityInput } from '../../schemas/activity.ts';
import { Topics } from '../../schemas/messages.ts';
import { toPublic } from './activity-privacy.ts';

/**
 * The one way any capability announces something public. The input schema is strict: an event
 * carrying anything beyond kind, bot handle, model metadata and headline metrics (code, a
 * prompt, an email…) is refused here, before it can reach the feed. What a private model may
 * not show publicly (a signal's side and price) is removed before the event is stored.
 */
export class ActivityBus {
  /** `batcher`: events of one event-loop turn go out together (a host's model actors firing on the same bar). */
  constructor(
    private readonly bus: Required<PublishVia>,
    private readonly batcher?: StreamBatcher,
  ) {}

  /** Publishes the event; resolves with its id (the stream sequence). */
  async emit(event: ActivityInput): Promise<number> {
    // Parsed once, by the topic's schema (the strict ActivityInput), after the private parts are
    // removed. The ACTIVITY stream stores the topic: both resolve once it holds the event.
    const shown = toPublic(event);
    const stored = this.batcher
      ? await publishBatched(this.batcher, Topics.activity, [shown.kind], shown)
      : await publish(this.bus, Topics.activity, [shown.kind], shown);
    return stored!.seq;
  }
}
