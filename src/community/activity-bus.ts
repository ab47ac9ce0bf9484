import { publish, type PublishVia } from '../bus/index.ts';
import { ActivityInput } from '../../schemas/activity.ts';
import { Topics } from '../../schemas/messages.ts';
import { toPublic } from './activity-privacy.ts';

/**
 * The one way any capability announces something public. The input schema is strict: an event
 * carrying anything beyond kind, bot handle, model metadata and headline metrics (code, a
 * prompt, an email…) is refused here, before it can reach the feed. What a private model may
 * not show publicly (a signal's side and price) is removed before the event is stored.
 */
export class ActivityBus {
  constructor(private readonly bus: Required<PublishVia>) {}

  /** Publishes the event; resolves with its id (the stream sequence). */
  async emit(event: ActivityInput): Promise<number> {
    const parsed = toPublic(ActivityInput.parse(event));
    // The ACTIVITY stream stores the topic: `publish` resolves once it holds the event.
    const stored = await publish(this.bus, Topics.activity, [parsed.kind], parsed);
    return stored!.seq;
  }
}
