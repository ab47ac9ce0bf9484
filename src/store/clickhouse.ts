import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Logger } from '../log.ts';
import { MIGRATIONS } from './migrations.ts';
import { registerEmbedded } from './bulk-io.ts';
import { join } from 'node:path';

export type { ClickHouseClient };

type ClientOptions = NonNullable<Parameters<typeof createClient>[0]>;

export interface ClickHouseOptions {
  /** A ClickHouse server URL; when absent, chdb runs in-process on `path`. */
  url?: string;
  path: string;
  log: Logger;
}

/** Numbers come back as JSON numbers, not quoted strings, on chdb and server alike. */
const SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;

/** Opens ClickHouse (chdb embedded, or a server) through the same client API and applies migrations. */
export async function openClickHouse({ url, path, log }: ClickHouseOptions): Promise<ClickHouseClient> {
  let client: ClickHouseClient;
  if (url) {
    client = createClient({ url, clickhouse_settings: SETTINGS });
  } else {
    mkdirSync(path, { recursive: true });
    // chdb builds against its own copy of the client's types; the runtime contract is the same.
    const connection = createChdbConnection({ path }) as unknown as NonNullable<ClientOptions['connection']>;
    client = createClient({ connection, clickhouse_settings: SETTINGS });
    const scratch = join(path, 'scratch');
    mkdirSync(scratch, { recursive: true });
    registerEmbedded(client, scratch);
  }
  for (const statement of MIGRATIONS) await client.command({ query: statement });
  log.info({ engine: url ? 'server' : 'chdb', path: url ? undefined : path }, 'clickhouse ready');
  return client;
}

/** Runs a query and returns its rows as objects. */
export async function selectRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await client.query({ query, query_params: params, format: 'JSONEachRow' });
  return result.json<T>();
}
