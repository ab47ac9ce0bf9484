import { Readable } from 'node:stream';
import { ask, openBlobStore, type Bus } from '../bus/index.ts';
import { UnavailableError } from '../errors.ts';
import { registerBinaryForwarder, type ClickHouseClient } from '../store/index.ts';
import { ObjectStores, Requests } from '../../schemas/messages.ts';
import { StoreReply, type StoreRequest } from '../../schemas/store-link.ts';
import { encodeFrame, incoming, outgoing } from './frames.ts';
import { STORE_BLOB_TTL_MS } from './store-server.ts';

/** One store request may take this long (a large insert on a busy owner). */
const REQUEST_TIMEOUT_MS = 20_000;

type Params = Record<string, unknown> | undefined;

/**
 * A ClickHouse client for a role without CLICKHOUSE_URL: every query goes over NATS to the process
 * that owns chdb (`serve` or `signalforge store`, serveStore). It implements the part of the
 * client API the repos use (JSONEachRow queries and inserts, commands, RowBinary selects, binary
 * inserts through bulk-io's forwarder), so the repos run on it unchanged.
 */
export async function remoteClickHouse(bus: Bus, replicas = 1): Promise<ClickHouseClient> {
  const blobs = await openBlobStore(bus, ObjectStores.storeRpc, replicas, STORE_BLOB_TTL_MS);
  const call = async (request: StoreRequest, body?: Uint8Array): Promise<Uint8Array> => {
    const frame = await outgoing(encodeFrame(request, body), blobs);
    let data: Uint8Array;
    try {
      data = await ask(bus, Requests.storeRpc, frame, REQUEST_TIMEOUT_MS);
    } catch (err) {
      if (/no responders|503/i.test((err as Error).message)) {
        throw new UnavailableError('no process owns the store: start `signalforge store` (or `serve`) on this NATS, or set CLICKHOUSE_URL');
      }
      throw err;
    }
    const reply = await incoming(data, blobs);
    const head = StoreReply.parse(reply.head);
    if (!head.ok) throw new Error(`store: ${head.error}`);
    return reply.body;
  };
  const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
  const client = {
    async query({ query, query_params }: { query: string; query_params?: Params }) {
      const body = text(await call({ op: 'query', query, params: query_params ?? {} }));
      return {
        text: async () => body,
        json: async () =>
          body
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as unknown),
        close: () => undefined,
      };
    },
    async command({ query, query_params }: { query: string; query_params?: Params }) {
      await call({ op: 'command', query, params: query_params ?? {} });
      return { query_id: '' };
    },
    async insert({ table, values }: { table: string; values: readonly unknown[] }) {
      await call({ op: 'insert', table }, Buffer.from(values.map((v) => JSON.stringify(v)).join('\n'), 'utf8'));
      return { executed: true, query_id: '' };
    },
    async exec({ query, query_params, values }: { query: string; query_params?: Params; values?: unknown }) {
      // Binary inserts take the forwarder below; only reads come here.
      if (values !== undefined) throw new Error('exec with a request body is not carried over NATS');
      const bytes = await call({ op: 'select-binary', query, params: query_params ?? {} });
      return { stream: Readable.from([Buffer.from(bytes)]), query_id: '' };
    },
    async ping() {
      await call({ op: 'query', query: 'SELECT 1', params: {} });
      return { success: true };
    },
    async close() {
      // The bus belongs to the role: closing the store client leaves it open.
    },
  } as unknown as ClickHouseClient;
  registerBinaryForwarder(client, (insert, data) => call({ op: 'insert-binary', insert }, data).then(() => undefined));
  return client;
}
