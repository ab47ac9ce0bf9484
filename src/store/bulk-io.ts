import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';

/**
 * Runs a SELECT and returns its result in ClickHouse's RowBinary format: for large numeric
 * reads this is several times faster to decode (a DataView walk) than any text format.
 */
export async function selectRowBinary(client: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<Buffer> {
  const result = await client.exec({ query: `${query}\nFORMAT RowBinary`, query_params: params });
  const chunks: Buffer[] = [];
  for await (const chunk of result.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Clients on an embedded chdb engine, with a scratch directory the engine can read files from. */
const scratchDirs = new WeakMap<ClickHouseClient, string>();

export function registerEmbedded(client: ClickHouseClient, scratchDir: string): void {
  scratchDirs.set(client, scratchDir);
}

/** Clients that hand binary inserts to the process owning the store (ClickHouse over NATS), bytes whole. */
const forwarders = new WeakMap<ClickHouseClient, (insert: BinaryInsert, data: Uint8Array) => Promise<void>>();

export function registerBinaryForwarder(
  client: ClickHouseClient,
  forward: (insert: BinaryInsert, data: Uint8Array) => Promise<void>,
): void {
  forwarders.set(client, forward);
}

/**
 * Inserts rows encoded in RowBinary (see RowBinaryWriter).
 * `structure` names and types the encoded columns, e.g. `symbol String, ts DateTime64(3)`.
 */
export async function insertRowBinary(client: ClickHouseClient, table: string, structure: string, data: Buffer): Promise<void> {
  // Column names are the first word of each top-level entry (commas inside types are skipped).
  const columns = structure
    .split(/,(?![^(]*\))/)
    .map((c) => c.trim().split(/\s+/)[0])
    .join(', ');
  await insertBinary(client, { table, columns, structure, format: 'RowBinary' }, [data]);
}

export interface BinaryInsert {
  table: string;
  /** Target columns, comma-separated, in the order `select` gives them. */
  columns: string;
  /** Name and type of each encoded column, e.g. `sym UInt8, ts Float64`. */
  structure: string;
  format: 'RowBinary' | 'Native';
  /** Expressions over the encoded columns, one per target column; default: them as they are. */
  select?: string;
  /** A SETTINGS clause body for the insert, e.g. `optimize_on_insert = 0`. */
  settings?: string;
}

/**
 * Inserts binary-encoded rows (RowBinary or a Native block), given as pieces to send one after
 * another. A ClickHouse server takes them as the request body through input(); the embedded
 * engine's client API only carries text, so there the bytes go through a scratch file the engine
 * reads with file() — still native parsing, no text on the way.
 */
export async function insertBinary(client: ClickHouseClient, insert: BinaryInsert, pieces: readonly Uint8Array[]): Promise<void> {
  if (pieces.every((p) => p.byteLength === 0)) return;
  const forward = forwarders.get(client);
  if (forward) return forward(insert, Buffer.concat(pieces));
  const { table, columns, structure, format, select = '*', settings } = insert;
  // Table-function arguments take literals; all of them are ours (a UUID path, constant structures).
  const literal = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  const tail = settings ? ` SETTINGS ${settings}` : '';
  const scratch = scratchDirs.get(client);
  if (!scratch) {
    const result = await client.exec({
      query: `INSERT INTO ${table} (${columns}) SELECT ${select} FROM input(${literal(structure)})${tail} FORMAT ${format}`,
      values: Readable.from(pieces, { objectMode: false }),
    });
    result.stream.destroy();
    return;
  }
  const path = join(scratch, `${table}-${randomUUID()}.${format.toLowerCase()}`);
  const file = await open(path, 'w');
  try {
    await file.writev(pieces as Uint8Array[]);
  } finally {
    await file.close();
  }
  try {
    await client.command({
      query: `INSERT INTO ${table} (${columns}) SELECT ${select} FROM file(${literal(path)}, '${format}', ${literal(structure)})${tail}`,
    });
  } finally {
    await rm(path, { force: true });
  }
}
