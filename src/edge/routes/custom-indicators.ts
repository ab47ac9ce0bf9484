import {
  CUSTOM_MAX_LIMIT,
  CUSTOM_WARMUP_BARS,
  CustomIndicatorRequest,
  CustomIndicatorResponse,
  PineErrorBody,
} from '../../../schemas/custom-indicators.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import type { CustomIndicators, CustomTimings } from '../../generation/index.ts';
import type { MarketData } from '../../market/index.ts';
import { requireUser } from '../plugins/auth.ts';
import { plainJsonSerializer, sendJsonParts } from '../plugins/fast-serializer.ts';
import type { App } from '../types.ts';

const CUSTOM_TIMING_DOC =
  '**Server-Timing** (a 200 answer’s header, in ms, for finding where a slow call spent its time): `pre` from its arrival to the handler (body, key, rate limit), `bars` reading the bars, ' +
  '`queue` waiting for a free interpreter worker, `worker` from hand-off to the worker’s answer (`run` plus copying the bars in and the answer out), ' +
  '`run` the worker’s parsing and interpreting, `charge` waiting for the credit write after the run (0 unless the balance store was slow), `total` from its arrival until the answer starts (sending it is not included).';

const DESCRIPTION =
  'Runs a TradingView Pine Script (v5/v6) — or a plain-language description, first turned into Pine — bar by bar over ' +
  `our bars: the newest \`limit\` (default 2000, at most ${CUSTOM_MAX_LIMIT}), after up to ${CUSTOM_WARMUP_BARS} earlier bars of warm-up. ` +
  'Our own parser and interpreter run it (never as JavaScript), in worker threads, with a budget of 30 million steps, ' +
  '10,000 iterations per loop per bar, 100,000 elements per array and 3 s per run. ' +
  'Answer: `overlays` (plots on the price pane), `panels` (a separate-pane indicator’s plots with its `hline` levels and bounds), ' +
  '`signals` (bars where plotshape/plotchar/alertcondition fired, and strategy.entry/close/exit calls), `features` per `fe_mode`, ' +
  'the `inputs` with their defaults (the values used), `source_kind`, and `generated_pine` when the source was text.\n\n' +
  '**Semantics.** Where a ta.* function has a twin among the built-in indicators (sma, ema, wma, rma, rsi, macd, bb, stdev, ' +
  'highest, lowest, stoch, atr, tr) it computes exactly what POST /api/v1/indicators computes: recursive averages ' +
  '(ema, rma, rsi, atr, macd, and those built on them: kc, tsi…) start from the first value (pandas `ewm(adjust=False)`), not from an SMA seed as on TradingView, so ' +
  'their first bars differ from TradingView’s until the seed has faded (see GET /api/v1/indicator-schema for the warm-up); ' +
  'ta.tr is high − low on the first bar; ta.stoch is 50 when the range is 0; ta.stdev is the population deviation unless biased=false; ta.bbw is in % of the basis. ' +
  'A window with na in it gives na (ta.mode leaves na out). Pivots must be strictly beyond every other bar of their window; highestbars/lowestbars prefer the newest bar on ties. ' +
  'Division by zero gives na. As on TradingView: `x[na]` reads the current bar; an int-typed length or offset with a fraction (`len / 2`) counts by its whole part; ' +
  'a variable of a block that did not run on a bar repeats its last value in its history. //@version=5 (or none) evaluates both sides of `and`/`or` on every bar and ' +
  'divides two integer literals as integers (7 / 2 is 3); //@version=6 short-circuits `and`/`or` (a ta.* call skipped on a bar misses that bar) and gives 3.5. ' +
  '**Time is UTC**: the time parts (hour, dayofweek…), year(t)…, timestamp() (a date without offset is UTC), sessions in time(timeframe, session), ' +
  'and the periods of timeframe.change() and time(): days start at 00:00 UTC (TradingView’s forex days start at 17:00 New York, so daily anchors differ), ' +
  'weeks on Sunday 00:00 UTC, intraday periods at multiples of their length from 00:00 UTC; ta.vwap without an anchor restarts each UTC day. ' +
  'Methods are supported on arrays and strings (`a.push(x)`, `s.length()`). ' +
  '**Strategies:** strategy.entry/close/exit calls are signals (what the script asked for); strategy.position_size is +1, −1 or 0, following market orders from the next bar; ' +
  'fills of stop/limit orders are not simulated, so a script that reads strategy.position_size and places them (strategy.exit stop=/limit=/profit=/loss=/trail_*, ' +
  'strategy.entry limit=/stop=) is refused.\n\n' +
  '**Not supported** (422 naming line:column and the construct): request.*, drawings (line/label/box/table/polyline), ' +
  'matrix/map, user-defined types, user-defined methods, enums, imports/libraries’ exports, plotcandle/plotbar, alert(), strategy.order/cancel and the strategy’s ' +
  'trade statistics (strategy.equity…), math.random, timenow, timezones other than UTC, Pine v4 and older, ' +
  'a header `timeframe` other than "" and `calc_bars_count` (each would change the values), and any unknown built-in or argument. ' +
  'A script needs a declaration (indicator/strategy/library) and, unless a library, an output (plot, plotshape, plotchar, hline, bgcolor, alertcondition or an order): ' +
  'without them it is a 422 at 1:1, as TradingView refuses it. Pasted text is read as the editor shows it: CRLF line ends, a byte-order mark, tabs and no-break spaces are fine. ' +
  '`offset` moves plots and plotshape/plotchar marks by whole bars; fill, bgcolor and barcolor draw nothing in the answer. ' +
  'Parse errors and runtime errors (step or time budget, huge arrays) are 422 as well.\n\n' +
  '**Cost:** 1 credit per call (402 before any work when the balance this edge last saw is short; the charge is written while the script runs and is exact: a balance another edge spent meanwhile gets the 402 after the run). ' +
  'A fault of ours is retried once, then refunded (500); ' +
  'provider haiku/sonnet counts against that model’s daily generation cap, as POST /generate does (429 past it; given back when the offline writer answers instead); ' +
  'a problem with the script is refunded and answered 422 with `line`, `column` and `construct` — except a run that used up its budget ' +
  '(30 million steps, 3 s, or the worker’s memory): that work was done, so the 422 keeps the credit charged.\n\n' +
  '**Fair shares:** the interpreter workers are shared fairly between keys: one script of a key runs at a time, the next free worker goes to the key ' +
  'served least recently, and at most 4 of a key’s calls wait — a fifth is 429 with Retry-After. For 10 minutes after a run of a key used up its budget, ' +
  'that key’s scripts run only while no other key’s script is running (so an endless loop never holds every worker), and may use 2 % of one worker’s time ' +
  '(one full 3 s run, refilled at 20 ms a second): past it a call is 429 with Retry-After until it has refilled.\n\n' +
  CUSTOM_TIMING_DOC;

/** `name;dur=ms` per stage measured (W3C Server Timing), in the order the description lists them. */
type Stages = CustomTimings & { pre?: number; bars?: number; total?: number };
function serverTiming(timing: Stages): string {
  return (['pre', 'bars', 'queue', 'worker', 'run', 'charge', 'total'] as const)
    .filter((name) => timing[name] !== undefined)
    .map((name) => `${name};dur=${timing[name]!.toFixed(1)}`)
    .join(', ');
}

export function customIndicatorRoutes(app: App, { market, custom }: { market: MarketData; custom: CustomIndicators }): void {
  app.post('/api/v1/indicators/custom', {
    config: { auth: 'key' },
    ...plainJsonSerializer,
    schema: {
      tags: ['market'],
      summary: 'A custom indicator from Pine Script or plain language',
      description: DESCRIPTION,
      body: CustomIndicatorRequest,
      response: { 200: CustomIndicatorResponse, 402: ErrorBody, 422: PineErrorBody, 429: ErrorBody },
    },
    handler: async (request, reply) => {
      const user = requireUser(request);
      const { body } = request;
      // Since the request arrived: body parsing, authentication and the rate limit.
      const pre = reply.elapsedTime;
      const started = performance.now();
      const series = await market.cache.get(body.symbol, body.timeframe);
      const c = series.columns();
      const end = c.ts.length;
      const start = Math.max(0, end - body.limit - CUSTOM_WARMUP_BARS);
      const from = Math.max(0, end - body.limit) - start;
      const slice = (x: Float64Array) => x.slice(start, end);
      const bars = {
        ts: slice(c.ts),
        open: slice(c.open),
        high: slice(c.high),
        low: slice(c.low),
        close: slice(c.close),
        volume: slice(c.volume),
        from,
      };
      const timing: Stages = { pre, bars: performance.now() - started };
      const json = await custom.compute(user, body, bars, timing);
      timing.total = reply.elapsedTime;
      reply.header('server-timing', serverTiming(timing));
      return sendJsonParts<CustomIndicatorResponse>(reply, json);
    },
  });
}
