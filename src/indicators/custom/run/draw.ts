/** Header, input.*, drawing and signal built-ins: they record into the run's outputs. */
import type { Expr } from '../pine/ast.ts';
import { num, str, type Builtin, type Ctx } from './ctx.ts';
import type { InputOut, SignalOut } from './outputs.ts';
import { truthy, type Value } from './values.ts';

/** Parameters that only change how TradingView draws or lists a script: accepted, no effect here. */
const COSMETIC = [
  'editable', 'display', 'show_last', 'trackprice', 'histbase', 'join', 'force_overlay', 'precision', 'format', 'scale',
  'max_bars_back', 'timeframe', 'timeframe_gaps', 'explicit_plot_zorder', 'max_lines_count', 'max_labels_count',
  'max_boxes_count', 'calc_bars_count', 'max_polylines_count', 'dynamic_requests', 'behind_chart', 'textcolor', 'size',
  'tooltip', 'group', 'inline', 'confirm', 'linestyle', 'transp', 'fillgaps', 'shorttitle', 'initial_capital',
  'default_qty_type', 'default_qty_value', 'pyramiding', 'commission_type', 'commission_value', 'currency', 'slippage',
  'process_orders_on_close', 'close_entries_rule', 'calc_on_every_tick', 'calc_on_order_fills', 'use_bar_magnifier',
  'backtest_fill_limits_assumption', 'margin_long', 'margin_short', 'risk_free_rate', 'fill_orders_on_standard_ohlc',
  'display', 'active', 'comment', 'alert_message', 'disable_alert', 'qty', 'qty_percent', 'limit', 'stop', 'oca_name',
  'oca_type', 'immediately', 'profit', 'loss', 'trail_price', 'trail_points', 'trail_offset', 'comment_profit',
  'comment_loss', 'comment_trailing', 'from_entry', 'bordercolor', 'wickcolor', 'offset_x',
];

/** Header arguments that change the values, not the drawing: run only at their chart defaults. */
const HEADER_SEMANTIC = ['timeframe', 'calc_bars_count'];
const HEADER_IGNORED = COSMETIC.filter((k) => !HEADER_SEMANTIC.includes(k));

function header(kind: 'indicator' | 'strategy' | 'library'): Builtin {
  return {
    params: ['title', 'shorttitle', 'overlay', ...HEADER_SEMANTIC],
    once: true,
    ignored: HEADER_IGNORED,
    fn: (ctx, a) => {
      // timeframe="" is the chart's own; another timeframe (or a cut history) would give other values.
      if (a[3] !== undefined && a[3] !== null && str(a[3]) !== '') ctx.fail(`${kind}(timeframe=${JSON.stringify(str(a[3]))}) is not supported: the script runs on the requested timeframe; set it with the request's timeframe`);
      if (a[4] !== undefined && a[4] !== null && !(typeof a[4] === 'number' && a[4] !== a[4])) ctx.fail(`${kind}(calc_bars_count=…) is not supported: the request's limit sets the bars`);
      ctx.out.header.title = str(a[0]);
      ctx.out.header.kind = kind;
      ctx.out.header.overlay = a[2] === true;
      return null;
    },
  };
}

/** An input's value is its default; the first bar records it with its title and bounds. */
function input(type: InputOut['type'], once = type !== 'source'): Builtin {
  return {
    params: ['defval', 'title', 'minval', 'maxval', 'step', 'options'],
    // A typed input is a constant; a source input (or input(close)) is a series, read every bar.
    once,
    ignored: COSMETIC,
    fn: (ctx, a, call) => {
      const site = call.id;
      if (!ctx.out.inputs.has(site)) {
        const def = a[0];
        const first = call.args[0] ?? call.named.defval;
        // input(close) is a source input: its default is a series, named rather than valued.
        const kind = type === 'float' && sourceName(first) !== null && SERIES.has(sourceName(first)!) ? 'source' : type;
        const entry: InputOut = {
          name: ctx.target ?? `input_${ctx.out.inputs.size + 1}`,
          title: str(a[1]) || (ctx.target ?? ''),
          type: kind,
          // A source input's default is the series it names (close, hl2…).
          default: kind === 'source' ? sourceName(first) : typeof def === 'number' && def !== def ? null : (def as number | boolean | string),
        };
        if (typeof a[2] === 'number') entry.min = a[2];
        if (typeof a[3] === 'number') entry.max = a[3];
        // options=[…] is a list literal (a tuple here) or an array.
        const options = Array.isArray(a[5]) ? a[5] : a[5] && typeof a[5] === 'object' ? a[5].items : null;
        if (options) entry.options = options.filter((x): x is number | string => typeof x === 'number' || typeof x === 'string');
        ctx.out.inputs.set(site, entry);
      }
      return a[0] ?? null;
    },
  };
}
const sourceName = (e: Expr | undefined): string | null => (e && e.kind === 'name' ? e.name : null);
const SERIES = new Set(['open', 'high', 'low', 'close', 'volume', 'hl2', 'hlc3', 'ohlc4', 'hlcc4']);

function plot(ctx: Ctx, call: { id: number }, a: Value[]): void {
  let p = ctx.out.plots.get(call.id);
  if (!p) {
    const offset = a[5] === undefined ? 0 : num(a[5]);
    if (!Number.isInteger(offset) || Math.abs(offset) > 500) ctx.fail(`plot offset must be an integer within ±500, got ${offset}`);
    p = {
      title: str(a[1]) || `plot_${ctx.out.plots.size + 1}`,
      color: typeof a[2] === 'string' ? a[2] : null,
      linewidth: a[3] === undefined ? 1 : num(a[3]),
      style: typeof a[4] === 'string' ? a[4] : 'style_line',
      values: new Float64Array(ctx.n).fill(NaN),
      offset,
      forceOverlay: a[6] === true,
    };
    ctx.out.plots.set(call.id, p);
  }
  if (p.color === null && typeof a[2] === 'string') p.color = a[2];
  p.values[ctx.bar] = num(a[0]);
}

function mark(kind: SignalOut['kind']): Builtin {
  // plotshape(series, title, style, location, color, offset, text) / plotchar(series, title, char, location, …)
  return {
    params: kind === 'plotshape' ? ['series', 'title', 'style', 'location', 'color', 'offset', 'text'] : ['series', 'title', 'char', 'location', 'color', 'offset', 'text'],
    ignored: COSMETIC,
    fn: (ctx, a) => {
      const v = a[0];
      const offset = a[5] === undefined || a[5] === null ? 0 : num(a[5]);
      if (!Number.isInteger(offset) || Math.abs(offset) > 500) ctx.fail(`${kind} offset must be an integer within ±500, got ${offset}`);
      // offset shifts the mark by whole bars, as on the chart; a mark shifted off the bars is not shown.
      const bar = ctx.bar + offset;
      if (bar >= 0 && bar < ctx.n && (typeof v === 'number' ? v === v && v !== 0 : truthy(v ?? null))) {
        ctx.out.signals.push({ bar, kind, title: str(a[1]), text: str(a[6]) || (kind === 'plotchar' ? str(a[2]) : ''), location: a[3] === undefined ? 'abovebar' : str(a[3]) });
      }
      return null;
    },
  };
}

/** Positional parameters of the order calls, in Pine's order, then `when` (v5's condition: false places nothing). */
const ORDER_PARAMS: Record<'strategy.entry' | 'strategy.close' | 'strategy.exit' | 'strategy.close_all', string[]> = {
  'strategy.entry': ['id', 'direction', 'qty', 'limit', 'stop', 'oca_name', 'oca_type', 'comment', 'alert_message', 'disable_alert', 'when'],
  'strategy.close': ['id', 'comment', 'qty', 'qty_percent', 'alert_message', 'immediately', 'disable_alert', 'when'],
  'strategy.exit': ['id', 'from_entry', 'qty', 'qty_percent', 'profit', 'limit', 'loss', 'stop', 'trail_price', 'trail_points', 'trail_offset', 'oca_name',
    'comment', 'comment_profit', 'comment_loss', 'comment_trailing', 'alert_message', 'alert_profit', 'alert_loss', 'alert_trailing', 'disable_alert', 'when'],
  'strategy.close_all': ['comment', 'alert_message', 'immediately', 'disable_alert', 'when'],
};

function order(kind: 'strategy.entry' | 'strategy.close' | 'strategy.exit' | 'strategy.close_all'): Builtin {
  const params = ORDER_PARAMS[kind];
  const when = params.indexOf('when');
  return {
    params,
    ignored: COSMETIC,
    fn: (ctx, a) => {
      if (a[when] !== undefined && !truthy(a[when]!)) return null;
      const s: SignalOut = { bar: ctx.bar, kind, title: kind === 'strategy.close_all' ? '' : str(a[0]), text: '' };
      if (kind === 'strategy.entry') {
        const dir = a[1];
        if (dir !== 'long' && dir !== 'short') ctx.fail('strategy.entry needs direction strategy.long or strategy.short');
        s.direction = dir as 'long' | 'short';
        ctx.out.position.pending = dir === 'long' ? 1 : -1;
      } else if (kind !== 'strategy.exit') ctx.out.position.pending = 0;
      ctx.out.signals.push(s);
      return null;
    },
  };
}

export const DRAW: Record<string, Builtin> = {
  indicator: header('indicator'),
  strategy: header('strategy'),
  library: header('library'),
  input: input('float', false),
  'input.int': input('int'),
  'input.float': input('float'),
  'input.bool': input('bool'),
  'input.string': input('string'),
  'input.source': input('source'),
  'input.color': input('color'),
  'input.timeframe': input('timeframe'),
  plot: {
    params: ['series', 'title', 'color', 'linewidth', 'style', 'offset', 'force_overlay'],
    ignored: COSMETIC,
    fn: (ctx, a, call) => {
      plot(ctx, call, a);
      return null;
    },
  },
  hline: {
    params: ['price', 'title', 'color', 'linestyle', 'linewidth'],
    once: true,
    ignored: COSMETIC,
    fn: (ctx, a, call) => {
      if (!ctx.out.hlines.has(call.id)) ctx.out.hlines.set(call.id, { title: str(a[1]), price: num(a[0]), color: typeof a[2] === 'string' ? a[2] : null });
      return null;
    },
  },
  // Fills and background colours shade the chart between plots: nothing to compute.
  fill: { params: ['hline1', 'hline2', 'color', 'title'], ignored: COSMETIC, fn: () => null },
  bgcolor: { params: ['color', 'offset', 'title'], ignored: COSMETIC, fn: () => null },
  barcolor: { params: ['color', 'offset', 'title'], ignored: COSMETIC, fn: () => null },
  plotshape: mark('plotshape'),
  plotchar: mark('plotchar'),
  alertcondition: {
    params: ['condition', 'title', 'message'],
    ignored: COSMETIC,
    fn: (ctx, a) => {
      if (truthy(a[0] ?? null)) ctx.out.signals.push({ bar: ctx.bar, kind: 'alertcondition', title: str(a[1]), text: str(a[2]) });
      return null;
    },
  },
  'strategy.entry': order('strategy.entry'),
  'strategy.close': order('strategy.close'),
  'strategy.exit': order('strategy.exit'),
  'strategy.close_all': order('strategy.close_all'),
};
