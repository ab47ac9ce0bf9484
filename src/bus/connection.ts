import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '../log.ts';
import { isTransientBusError } from './transient.ts';

/** How long a starting process waits for JetStream to answer (a cluster electing its leader after a restart). */
const JETSTREAM_READY_MS = 60_000;

async function managerOnceReady(nc: NatsConnection, log: Logger): Promise<JetStreamManager> {
  const deadline = Date.now() + JETSTREAM_READY_MS;
  for (;;) {
    try {
      return await jetstreamManager(nc);
    } catch (err) {
      if (!isTransientBusError(err) || Date.now() > deadline) throw err;
      log.warn({ err: (err as Error).message }, 'JetStream not answering yet (a cluster electing its leader?): trying again');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Flushes what is in flight and closes the connection. */
  close(): Promise<void>;
}

/** Connects to NATS, reconnecting for ever: a restarting server must not take the service down. */
export async function connectBus(url: string, name: string, log: Logger): Promise<Bus> {
  // noAsyncTraces: no stack captured per request (a measured ~10% of the client's CPU under load).
  const nc = await connect({ servers: url.split(','), name, maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        log.warn({ nats: status.type }, 'nats connection status');
      }
    }
  })();
  const js = jetstream(nc);
  const jsm = await managerOnceReady(nc, log);
  return {
    nc,
    js,
    jsm,
    async close() {
      if (nc.isClosed()) return;
      await nc.drain();
    },
  };
}
