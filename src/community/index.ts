import { ensureStream, type Bus } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { Streams } from '../../schemas/messages.ts';
import { ActivityBus } from './activity-bus.ts';
import { ActivityFeed } from './activity-feed.ts';

export { ActivityBus } from './activity-bus.ts';
export { ActivityFeed, type ActivityListener } from './activity-feed.ts';

export interface Activity {
  bus: ActivityBus;
  feed: ActivityFeed;
  stop(): void;
}

/** Provisions the activity stream and starts the in-memory feed over it. */
export async function buildActivity(deps: { bus: Bus; log: Logger; replicas: number }): Promise<Activity> {
  await ensureStream(deps.bus, Streams.activity, deps.replicas);
  const feed = new ActivityFeed(deps.bus, deps.log);
  await feed.start();
  return { bus: new ActivityBus(deps.bus), feed, stop: () => feed.stop() };
}
