import type { ClickHouseClient } from '@clickhouse/client';

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Gathers rows written within a few milliseconds into one INSERT. ClickHouse wants few, large
 * inserts; callers still await their own rows, so nothing is acknowledged before it is stored.
 */
export class InsertBatcher<Row extends Record<string, unknown>> {
  private rows: Row[] = [];
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
    private readonly options: {
      maxRows?: number;
      maxDelayMs?: number;
      /** How a batch is written (default: one JSONEachRow INSERT into the table). */
      write?: (rows: Row[]) => Promise<void>;
    } = {},
  ) {}

  insert(rows: Row | Row[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.rows.push(...(Array.isArray(rows) ? rows : [rows]));
      this.waiters.push({ resolve, reject });
      if (this.rows.length >= (this.options.maxRows ?? 10_000)) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), this.options.maxDelayMs ?? 5);
    });
  }

  /** Writes what is pending and waits for every write started so far. */
  async flush(): Promise<void> {
    this.flushNow();
    await this.inFlight;
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.rows.length === 0) return;
    const rows = this.rows;
    const waiters = this.waiters;
    this.rows = [];
    this.waiters = [];
    // Inserts go one after another so rows land in the order they were written.
    const write = this.options.write ?? ((values: Row[]) => this.client.insert({ table: this.table, values, format: 'JSONEachRow' }));
    this.inFlight = this.inFlight.then(() =>
      write(rows).then(
        () => waiters.forEach((w) => w.resolve()),
        (err: unknown) => waiters.forEach((w) => w.reject(err)),
      ),
    );
  }
}
