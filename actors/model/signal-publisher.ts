import { lastBySubject, publish, publishBatched, type Bus, type StreamBatcher } from '../../src/bus/index.ts';
import { parseSignal } from '../../src/delivery/index.ts';
import type { BarPrediction, SignalEvent } from '../../schemas/live.ts';
import { Streams, Topics } from '../../schemas/messages.ts';

/**
 * Publishes a signal on its deployment's subject; msgID = its id, so a replayed bar publishes
 * nothing twice. With a batcher, with the other signals of the same event-loop turn (a bar's).
 */
export function signalPublisher(bus: Bus, batcher?: StreamBatcher): (event: SignalEvent) => Promise<void> {
  return async (event) => {
    if (batcher) await publishBatched(batcher, Topics.signal, [event.deployment_id], event, event.id);
    else await publish(bus, Topics.signal, [event.deployment_id], event, { msgID: event.id });
  };
}

/**
 * Publishes a bar's prediction (core NATS, not stored: the WebSocket `predictions` channel follows
 * it live). With a batcher, with the other predictions of the same event-loop turn, in one write.
 */
export function predictionPublisher(bus: Bus, batcher?: StreamBatcher): (prediction: BarPrediction) => void {
  return (prediction) => {
    void (batcher
      ? publishBatched(batcher, Topics.prediction, [prediction.deployment_id], prediction)
      : publish(bus, Topics.prediction, [prediction.deployment_id], prediction));
  };
}

/**
 * The bar (open time) of the last signal a deployment stored on SIGNALS, or null when it stored
 * none (or the last one does not read as a signal): where a restarted actor stops re-sending.
 */
export async function lastStoredBar(bus: Pick<Bus, 'jsm'>, deploymentId: string): Promise<number | null> {
  const msg = await lastBySubject(bus, Streams.signals.name, Topics.signal.subject(deploymentId));
  const event = msg ? parseSignal(msg.data) : null;
  return event ? Date.parse(event.bar_time) : null;
}
