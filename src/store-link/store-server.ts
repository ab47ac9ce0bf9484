import { answer, openBlobStore, type Bus } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { insertBinary, type ClickHouseClient } from '../store/index.ts';
import { ObjectStores, Requests } from '../../schemas/messages.ts';
import { StoreRequest } from '../../schemas/store-link.ts';
import { encodeFrame, incoming, outgoing } from './frames.ts';

/** Store blobs live at most this long (a reader that died never deletes its blob). */
export const STORE_BLOB_TTL_MS = 10 * 60_000;

async function execute(client: ClickHouseClient, request: StoreRequest, body: Uint8Array): Promise<Uint8Array | undefined> {
  switch (request.op) {
    case 'query': {
      const result = await client.query({ query: request.query, query_params: request.params, format: 'JSONEachRow' });
      return Buffer.from(await result.text(), 'utf8');
    }
    case 'command':
      await client.command({ query: request.query, query_params: request.params });
      return undefined;
    case 'insert': {
      const values = Buffer.from(body)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      if (values.length > 0) await client.insert({ table: request.table, values, format: 'JSONEachRow' });
      return undefined;
    }
    case 'select-binary': {
      const result = await client.exec({ query: request.query, query_params: request.params });
      const chunks: Buffer[] = [];
      for await (const chunk of result.stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    }
    case 'insert-binary':
      await insertBinary(client, request.insert, [body]);
      return undefined;
  }
}

/**
 * Answers the store requests of roles that have no ClickHouse of their own (no CLICKHOUSE_URL):
 * the process that owns chdb runs them on its client. A queue group, so a second owner (a
 * restarted one) never answers twice.
 */
export async function serveStore(bus: Bus, client: ClickHouseClient, log: Logger, replicas = 1): Promise<{ stop(): void }> {
  const blobs = await openBlobStore(bus, ObjectStores.storeRpc, replicas, STORE_BLOB_TTL_MS);
  // Every failure is an error frame: the asker reads why, instead of waiting for its timeout.
  const run = async (frame: Uint8Array): Promise<Uint8Array> => {
    let reply: Uint8Array;
    try {
      const { head, body } = await incoming(frame, blobs);
      const result = await execute(client, StoreRequest.parse(head), body);
      reply = encodeFrame({ ok: true }, result);
    } catch (err) {
      reply = encodeFrame({ ok: false, error: (err as Error).message || String(err) });
    }
    return outgoing(reply, blobs);
  };
  const sub = answer(bus, Requests.storeRpc, run, { log, queue: 'store' });
  log.info('answering store requests over NATS (store.rpc)');
  return { stop: () => sub.unsubscribe() };
}
