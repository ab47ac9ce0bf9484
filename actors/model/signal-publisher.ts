import type { Bus } from '../../src/bus/index.ts';
import { SignalEvent } from '../../schemas/live.ts';
import { Subjects } from '../../schemas/messages.ts';

/** Publishes a signal on its deployment's subject; msgID = its id, so a replayed bar publishes nothing twice. */
export function signalPublisher(bus: Bus): (event: SignalEvent) => Promise<void> {
  return async (event) => {
    await bus.js.publish(Subjects.signal(event.deployment_id), JSON.stringify(SignalEvent.parse(event)), { msgID: event.id });
  };
}
