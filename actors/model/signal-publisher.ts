import { publish, type Bus } from '../../src/bus/index.ts';
import type { BarPrediction, SignalEvent } from '../../schemas/live.ts';
import { Topics } from '../../schemas/messages.ts';

/** Publishes a signal on its deployment's subject; msgID = its id, so a replayed bar publishes nothing twice. */
export function signalPublisher(bus: Bus): (event: SignalEvent) => Promise<void> {
  return async (event) => {
    await publish(bus, Topics.signal, [event.deployment_id], event, { msgID: event.id });
  };
}

/** Publishes a bar's prediction (core NATS, not stored: the WebSocket `predictions` channel follows it live). */
export function predictionPublisher(bus: Bus): (prediction: BarPrediction) => void {
  return (prediction) => {
    void publish(bus, Topics.prediction, [prediction.deployment_id], prediction);
  };
}
