import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '../log.ts';
import { BusRetry } from './retry.ts';

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The retry of start-up steps on this connection (provisioning, consumers, watches), and what they wait for now. */
  retry: BusRetry;
  /**
   * A second connection to the same servers, for the little that must never wait behind this
   * one's bulk traffic: a host's heartbeat. Starting thousands of actors reads a gigabyte of
   * models through the first; a renewal answered behind it came too late, and the host lost every
   * lease it held. Made on first use, shared by the process's lease hosts, closed with this one.
   */
  priority(): Promise<Bus>;
  /** Flushes what is in flight and closes the connection (and the priority one). */
  close(): Promise<void>;
}

/**
 * Connects to NATS, reconnecting for ever: a restarting server must not take the service down.
 * Until one of the listed servers answers, and until JetStream does, it keeps trying (`retry`,
 * logged): a role may start before its cluster, or while a node is down or a leader is elected.
 */
export async function connectBus(url: string, name: string, log: Logger, retry: BusRetry = new BusRetry(log)): Promise<Bus> {
  const servers = url.split(',');
  // noAsyncTraces: no stack captured per request (a measured ~10% of the client's CPU under load).
  const nc = await retry.run({ op: 'connect', kind: 'nats', name: servers.join(',') }, () =>
    connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true }),
  );
  retry.attach(nc);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        log.warn({ nats: status.type, server: nc.info?.server_name ?? null }, 'nats connection status');
      }
    }
  })();
  const js = jetstream(nc);
  try {
    const jsm = await retry.run({ op: 'account info', kind: 'jetstream', name: 'api' }, () => jetstreamManager(nc));
    let priority: Promise<Bus> | null = null;
    return {
      nc,
      js,
      jsm,
      retry,
      priority: () => (priority ??= connectBus(url, `${name} (priority)`, log, retry)),
      async close() {
        const side = await priority?.catch(() => null);
        await side?.close();
        if (nc.isClosed()) return;
        await nc.drain();
      },
    };
  } catch (err) {
    await nc.close();
    throw err;
  }
}
