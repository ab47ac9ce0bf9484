/**
 * ClickHouse over NATS (`store.rpc`): roles without CLICKHOUSE_URL reach the store of the process
 * that owns chdb (`serve`, or `signalforge store`) with these requests. Each frame is
 * [u32 LE length of the JSON][the JSON][binary body]; a frame over ~900 KB travels as a blob in the
 * `sf_store_rpc` object store instead, named by `blob`.
 */
import { z } from 'zod';

const params = z.record(z.string(), z.unknown()).default({});

export const BinaryInsertSpec = z.object({
  table: z.string().regex(/^\w+$/),
  columns: z.string(),
  structure: z.string(),
  format: z.enum(['RowBinary', 'Native']),
  select: z.string().optional(),
  settings: z.string().optional(),
});

export const StoreRequest = z.discriminatedUnion('op', [
  /** A SELECT in JSONEachRow: the reply body is the result text. */
  z.object({ op: z.literal('query'), query: z.string(), params }),
  /** A statement without a result (DDL, INSERT … SELECT, OPTIMIZE). */
  z.object({ op: z.literal('command'), query: z.string(), params }),
  /** Rows as JSON objects (the request body: JSONEachRow text). */
  z.object({ op: z.literal('insert'), table: z.string().regex(/^\w+$/) }),
  /** A SELECT in RowBinary: the reply body is the bytes. */
  z.object({ op: z.literal('select-binary'), query: z.string(), params }),
  /** Binary-encoded rows (the request body) into a table. */
  z.object({ op: z.literal('insert-binary'), insert: BinaryInsertSpec }),
]);
export type StoreRequest = z.infer<typeof StoreRequest>;

export const StoreReply = z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), error: z.string() })]);
export type StoreReply = z.infer<typeof StoreReply>;

/** The framing header: a whole frame, or where it was put because it was too large for a message. */
export const StoreFrameHead = z.object({ blob: z.string().optional() }).passthrough();
