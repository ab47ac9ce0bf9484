/** Header, input.*, drawing and signal built-ins: they record into the run's outputs. */
import type { Expr } from '../syntax/ast.ts';
import { num, str, type Builtin, type Ctx } from '../runtime/ctx.ts';
import type { InputOut, SignalOut } from '../runtime/outputs.ts';
import { truthy, type Value } from '../runtime/values.ts';

/** Parameters that only change how TradingView draws or lists a script: accepted, no effect here. */
const COSMETIC = [
  'editable',
  'display',
  'show_last',
  'trackprice',
  'histbase',
  'join',
  'force_overlay',
  'precision',
  'format',
  'scale',
  'max_bars_back',
  'timeframe',
  'timeframe_gaps',
  'explicit_plot_zorder',
  'max_lines_count',
  'max_labels_count',
  'max_boxes_count',
  'calc_bars_count',
  'max_polylines_count',
  'dynamic_requests',
  'behind_chart',
  'textcolor',
  'size',
  'tooltip',
  'group',
  'inline',
  'confirm',
  'linestyle',
  'transp',
  'fillgaps',
  'shorttitle',
  'initial_capital',
  'default_qty_type',
  'default_qty_value',
  'pyramiding',
  'commission_type',
  'commission_value',
  'currency',
  'slippage',
  'process_orders_on_close',
  'close_entries_rule',
  'calc_on_every_tick',
  'calc_on_order_fills',
  'use_bar_magnifier',
  'backtest_fill_limits_assumption',
  'margin_long',
  'margin_short',
  'risk_free_rate',
  'fill_orders_on_standard_ohlc',
  'display',
  'active',
  'comment',
  'alert_message',
  'disable_alert',
  'qty',
  'qty_percent',
  'limit',
  'stop',
  'oca_name',
  'oca_type',
  'immediately',
  'profit',
  'loss',
  'trail_price',
  'trail_points',
  'trail_offset',
  'comment_profit',
  'comment_loss',
  'comment_trailing',
  'from_entry',
  'bordercolor',
  'wickcolor',
  'offset_x',
];

/** Header parameters in Pine's order (positional arguments bind to them). */
const HEADER_PARAMS: Record<'indicator' | 'strategy' | 'library', string[]> = {
  indicator: [
    'title',
    'shorttitle',
    'overlay',
    'format',
    'precision',
    'scale',
    'max_bars_back',
    'timeframe',
    'timeframe_gaps',
    'explicit_plot_zorder',
    'max_lines_count',
    'max_labels_count',
    'max_boxes_count',
    'calc_bars_count',
    'max_polylines_count',
    'dynamic_requests',
    'behind_chart',
  ],
  strategy: [
    'title',
    'shorttitle',
    'overlay',
    'format',
    'precision',
    'scale',
    'pyramiding',
    'calc_on_order_fills',
    'calc_on_every_tick',
    'max_bars_back',
    'backtest_fill_limits_assumption',
    'default_qty_type',
    'default_qty_value',
    'initial_capital',
    'currency',
    'slippage',
    'commission_type',
    'commission_value',
    'process_orders_on_close',
    'close_entries_rule',
    'margin_long',
    'margin_short',
    'explicit_plot_zorder',
    'max_lines_count',
    'max_labels_count',
    'max_boxes_count',
    'calc_bars_count',
    'risk_free_rate',
    'use_bar_magnifier',
    'fill_orders_on_standard_ohlc',
    'max_polylines_count',
    'dynamic_requests',
    'behind_chart',
  ],
  library: ['title', 'overlay', 'dynamic_requests'],
};
const given = (v: Value | undefined): boolean => v !== undefined && v !== null && !(typeof v === 'number' && v !== v);

function header(kind: 'indicator' | 'strategy' | 'library'): Builtin {
  // timeframe= on a strategy or library (not Pine's) is refused like another timeframe, never ignored.
  const params = HEADER_PARAMS[kind].includes('timeframe') ? HEADER_PARAMS[kind] : [...HEADER_PARAMS[kind], 'timeframe'];
  // Header arguments that change the values, not the drawing: run only at their chart defaults.
  const timeframe = params.indexOf('timeframe');
  const calcBars = params.indexOf('calc_bars_count');
  const overlay = params.indexOf('overlay');
  return {
    params,
    once: true,
    ignored: COSMETIC,
    fn: (ctx, a) => {
      // timeframe="" is the chart's own; another timeframe (or a cut history) would give other values.
      if (timeframe >= 0 && given(a[timeframe]) && str(a[timeframe]) !== '') {
        ctx.fail(
          `${kind}(timeframe=${JSON.stringify(str(a[timeframe]))}) is not supported: the script runs on the requested timeframe; set it with the request's timeframe`,
        );
      }
      if (given(a[calcBars])) ctx.fail(`${kind}(calc_bars_count=…) is not supported: the request's limit sets the bars`);
      ctx.out.header.title = str(a[0]);
      ctx.out.header.kind = kind;
      ctx.out.header.overlay = a[overlay] === true;
      return null;
    },
  };
}

/** Each input function's parameters in Pine's order (int/float take `options` by name, or a list in third place). */
const INPUT_PARAMS: Record<string, string[]> = {
  input: ['defval', 'title', 'tooltip', 'inline', 'group', 'display'],
  'input.int': ['defval', 'title', 'minval', 'maxval', 'step', 'tooltip', 'inline', 'group', 'confirm', 'display', 'options'],
  'input.float': ['defval', 'title', 'minval', 'maxval', 'step', 'tooltip', 'inline', 'group', 'confirm', 'display', 'options'],
  'input.bool': ['defval', 'title', 'tooltip', 'inline', 'group', 'confirm', 'display'],
  'input.string': ['defval', 'title', 'options', 'tooltip', 'inline', 'group', 'confirm', 'display'],
  'input.timeframe': ['defval', 'title', 'options', 'tooltip', 'inline', 'group', 'confirm', 'display'],
  'input.session': ['defval', 'title', 'options', 'tooltip', 'inline', 'group', 'confirm', 'display'],
  'input.source': ['defval', 'title', 'tooltip', 'inline', 'group', 'display'],
  'input.color': ['defval', 'title', 'tooltip', 'inline', 'group', 'confirm', 'display'],
  'input.time': ['defval', 'title', 'tooltip', 'inline', 'group', 'confirm', 'display'],
  'input.text_area': ['defval', 'title', 'tooltip', 'group', 'confirm', 'display'],
};
const listOf = (v: Value | undefined): Value[] | null => (Array.isArray(v) ? v : v && typeof v === 'object' ? v.items : null);

/** An input's value is its default; the first bar records it with its title and bounds. */
function input(name: string, type: InputOut['type'], once = type !== 'source'): Builtin {
  const params = INPUT_PARAMS[name]!;
  const [minval, maxval, options] = ['minval', 'maxval', 'options'].map((k) => params.indexOf(k)) as [number, number, number];
  return {
    params,
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
          default:
            kind === 'source' ? sourceName(first) : typeof def === 'number' && def !== def ? null : (def as number | boolean | string),
        };
        // input.int(10, "Length", [5, 10, 20]): a list in third place is the options.
        const list = listOf(a[options]) ?? (minval >= 0 ? listOf(a[minval]) : null);
        if (minval >= 0 && typeof a[minval] === 'number') entry.min = a[minval];
        if (maxval >= 0 && typeof a[maxval] === 'number') entry.max = a[maxval];
        // options=[…] is a list literal (a tuple here) or an array.
        if (list) entry.options = list.filter((x): x is number | string => typeof x === 'number' || typeof x === 'string');
        ctx.out.inputs.set(site, entry);
      }
      return a[0] ?? null;
    },
  };
}
const sourceName = (e: Expr | undefined): string | null => (e && e.kind === 'name' ? e.name : null);
const SERIES = new Set(['open', 'high', 'low', 'close', 'volume', 'hl2', 'hlc3', 'ohlc4', 'hlcc4']);

const PLOT_PARAMS = [
  'series',
  'title',
  'color',
  'linewidth',
  'style',
  'trackprice',
  'histbase',
  'offset',
  'join',
  'editable',
  'show_last',
  'display',
  'format',
  'precision',
  'force_overlay',
];
const PLOT_OFFSET = PLOT_PARAMS.indexOf('offset');
const PLOT_OVERLAY = PLOT_PARAMS.indexOf('force_overlay');

function plot(ctx: Ctx, call: { id: number }, a: Value[]): void {
  let p = ctx.out.plots.get(call.id);
  if (!p) {
    const offset = a[PLOT_OFFSET] === undefined ? 0 : num(a[PLOT_OFFSET]);
    if (!Number.isInteger(offset) || Math.abs(offset) > 500) ctx.fail(`plot offset must be an integer within ±500, got ${offset}`);
    p = {
      title: str(a[1]) || `plot_${ctx.out.plots.size + 1}`,
      color: typeof a[2] === 'string' ? a[2] : null,
      linewidth: a[3] === undefined ? 1 : num(a[3]),
      style: typeof a[4] === 'string' ? a[4] : 'style_line',
      values: new Float64Array(ctx.n).fill(NaN),
      offset,
      forceOverlay: a[PLOT_OVERLAY] === true,
    };
    ctx.out.plots.set(call.id, p);
  }
  if (p.color === null && typeof a[2] === 'string') p.color = a[2];
  p.values[ctx.bar] = num(a[0]);
}

function mark(kind: SignalOut['kind']): Builtin {
  // plotshape(series, title, style, location, color, offset, text) / plotchar(series, title, char, location, …)
  return {
    params: [
      ...(kind === 'plotshape' ? ['series', 'title', 'style'] : ['series', 'title', 'char']),
      'location',
      'color',
      'offset',
      'text',
      'textcolor',
      'editable',
      'size',
      'show_last',
      'display',
      'format',
      'precision',
      'force_overlay',
    ],
    ignored: COSMETIC,
    fn: (ctx, a) => {
      const v = a[0];
      const offset = a[5] === undefined || a[5] === null ? 0 : num(a[5]);
      if (!Number.isInteger(offset) || Math.abs(offset) > 500) ctx.fail(`${kind} offset must be an integer within ±500, got ${offset}`);
      // offset shifts the mark by whole bars, as on the chart; a mark shifted off the bars is not shown.
      const bar = ctx.bar + offset;
      if (bar >= 0 && bar < ctx.n && (typeof v === 'number' ? v === v && v !== 0 : truthy(v ?? null))) {
        ctx.out.signals.push({
          bar,
          kind,
          title: str(a[1]),
          text: str(a[6]) || (kind === 'plotchar' ? str(a[2]) : ''),
          location: a[3] === undefined ? 'abovebar' : str(a[3]),
        });
      }
      return null;
    },
  };
}

/** Positional parameters of the order calls, in Pine's order, then `when` (v5's condition: false places nothing). */
const ORDER_PARAMS: Record<'strategy.entry' | 'strategy.close' | 'strategy.exit' | 'strategy.close_all', string[]> = {
  'strategy.entry': [
    'id',
    'direction',
    'qty',
    'limit',
    'stop',
    'oca_name',
    'oca_type',
    'comment',
    'alert_message',
    'disable_alert',
    'when',
  ],
  'strategy.close': ['id', 'comment', 'qty', 'qty_percent', 'alert_message', 'immediately', 'disable_alert', 'when'],
  'strategy.exit': [
    'id',
    'from_entry',
    'qty',
    'qty_percent',
    'profit',
    'limit',
    'loss',
    'stop',
    'trail_price',
    'trail_points',
    'trail_offset',
    'oca_name',
    'comment',
    'comment_profit',
    'comment_loss',
    'comment_trailing',
    'alert_message',
    'alert_profit',
    'alert_loss',
    'alert_trailing',
    'disable_alert',
    'when',
  ],
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
  input: input('input', 'float', false),
  'input.int': input('input.int', 'int'),
  'input.float': input('input.float', 'float'),
  'input.bool': input('input.bool', 'bool'),
  'input.string': input('input.string', 'string'),
  'input.source': input('input.source', 'source'),
  'input.color': input('input.color', 'color'),
  'input.timeframe': input('input.timeframe', 'timeframe'),
  // A session ("0930-1600") and a text are strings; a time input is its timestamp (ms).
  'input.session': input('input.session', 'string'),
  'input.text_area': input('input.text_area', 'string'),
  'input.time': input('input.time', 'int'),
  plot: {
    params: PLOT_PARAMS,
    ignored: COSMETIC,
    fn: (ctx, a, call) => {
      plot(ctx, call, a);
      return null;
    },
  },
  hline: {
    params: ['price', 'title', 'color', 'linestyle', 'linewidth', 'editable', 'display'],
    once: true,
    ignored: COSMETIC,
    fn: (ctx, a, call) => {
      if (!ctx.out.hlines.has(call.id))
        ctx.out.hlines.set(call.id, { title: str(a[1]), price: num(a[0]), color: typeof a[2] === 'string' ? a[2] : null });
      return null;
    },
  },
  // Fills and background colours shade the chart between plots: nothing to compute.
  fill: {
    params: [
      'hline1',
      'hline2',
      'color',
      'title',
      'editable',
      'show_last',
      'fillgaps',
      'display',
      'top_value',
      'bottom_value',
      'top_color',
      'bottom_color',
    ],
    ignored: COSMETIC,
    fn: () => null,
  },
  bgcolor: { params: ['color', 'offset', 'editable', 'show_last', 'title', 'display', 'force_overlay'], ignored: COSMETIC, fn: () => null },
  barcolor: { params: ['color', 'offset', 'editable', 'show_last', 'title', 'display'], ignored: COSMETIC, fn: () => null },
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
