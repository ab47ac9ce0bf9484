/** A chdb store in a temporary directory for one test file (chdb allows one per process), removed after. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { openClickHouse, type ClickHouseClient } from '../../src/store/index.ts';

/** Opens the store before the file's tests and removes it after; read `.client` inside tests. */
export function tempStore(name: string): { client: ClickHouseClient } {
  const store = {} as { client: ClickHouseClient };
  let dir = '';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), `sf-${name}-`));
    store.client = await openClickHouse({ path: join(dir, 'clickhouse'), log: createLogger('silent') });
  });
  after(async () => {
    await store.client?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}
