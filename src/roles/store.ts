import { serveBarPages, TickImporter } from '../market/index.ts';
import { serveStore } from '../store-link/index.ts';
import { ownParts, type RoleContext, type RoleParts } from './context.ts';
import { baseChecks, roleCommand } from './kit.ts';

/**
 * The data owner's parts: without a ClickHouse server, the store itself answered over NATS (the
 * other roles' queries and inserts); always, recent bars for the roles that score (bar pages,
 * from the cache) and tick-file imports (`signalforge import-ticks`).
 */
export function buildStore(ctx: RoleContext): Promise<RoleParts> {
  return ownParts(ctx, async (own) => {
    const { config, log, bus } = ctx;
    const clickhouse = await ctx.store();
    const market = await ctx.market();
    if (!config.CLICKHOUSE_URL) {
      const store = await serveStore(bus, clickhouse, log, config.NATS_REPLICAS);
      own.push(() => store.stop());
    }
    const pages = serveBarPages(bus, market.cache, log);
    own.push(() => pages.unsubscribe());
    const importer = new TickImporter({ ticks: market.ticks, bars: market.bars, bus, log });
    importer.serve();
    own.push(() => importer.stop());
    return { stats: () => ({ signalforge_bars_cached: market.cache.size() }) };
  });
}

/**
 * `signalforge store`: the data owner when there is no ClickHouse server — chdb under DATA_DIR,
 * answering the other roles' store requests, bar pages and tick imports over NATS.
 */
export const startStoreRole = roleCommand(
  'store',
  async (ctx) => ({ parts: await buildStore(ctx), checks: baseChecks(ctx.bus, await ctx.store()), running: {} }),
  { store: 'own' },
);
