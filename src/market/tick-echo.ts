import { publish, type Bus } from '../bus/index.ts';
import type { Tick } from '../../schemas/market.ts';
import { Topics } from '../../schemas/messages.ts';
import type { TickColumns } from '../store/index.ts';
import type { TickSink } from './tick-sink.ts';

/**
 * A sink that hands every batch to `inner` and tells core NATS its last tick (`feeds.ticks.<SYMBOL>`,
 * `TickEcho`), for the WebSocket `ticks` channel. In `serve` the feeds write straight into the bar
 * builder, never on `ticks.<SYMBOL>` (the subject outside feeds publish on and bar builders read),
 * so without it their ticks reached no subscriber. One small message per batch whatever its size:
 * the channel conflates to the latest tick anyway, and counts the ones before it.
 * Not for `ingest`: its feeds publish on `ticks.<SYMBOL>` already, which the channel reads too.
 */
export function echoTicks(bus: Pick<Bus, 'nc'>, inner: TickSink): TickSink {
  const tell = (symbol: Tick['symbol'], tick: Tick | { ts: number; bid: number; ask: number }, before: number) => {
    // Best effort: a lost echo costs a WebSocket frame, never a tick of the bars.
    void publish(bus, Topics.tickEcho, [symbol], { tick: { ts: tick.ts, bid: tick.bid, ask: tick.ask }, before }).catch(() => undefined);
  };
  const sink: TickSink = {
    write(ticks) {
      // A batch may mix symbols: each one's last tick is told.
      const last = new Map<Tick['symbol'], { tick: Tick; count: number }>();
      for (const t of ticks) {
        const seen = last.get(t.symbol);
        last.set(t.symbol, { tick: t, count: (seen?.count ?? 0) + 1 });
      }
      for (const [symbol, { tick, count }] of last) tell(symbol, tick, count - 1);
      return inner.write(ticks);
    },
  };
  if (inner.writeColumns) {
    const writeColumns = inner.writeColumns.bind(inner);
    sink.writeColumns = (columns: TickColumns) => {
      const n = columns.length;
      // Read before handing them on: the inner sink may keep (and later recycle) the columns.
      if (n > 0) tell(columns.symbol, { ts: columns.ts[n - 1]!, bid: columns.bid[n - 1]!, ask: columns.ask[n - 1]! }, n - 1);
      return writeColumns(columns);
    };
  }
  return sink;
}
