/**
 * The model page: candles with every trade on them (entry/exit markers; stop and take-profit
 * lines of the selected trade), spans, equity and drawdown, stats, trades, diagnostics, the
 * strategy code with retrain, deploy controls and the live signal feed.
 */
import {
  AreaSeries,
  CandlestickSeries,
  LineSeries,
  createSeriesMarkers,
  type IPriceLine,
  type ISeriesApi,
  type Time,
} from 'lightweight-charts';
import type { ModelCode, Results } from '../../schemas/training.ts';
import type { Trade, TradeStats } from '../../schemas/backtest.ts';
import type { SignalEvent } from '../../schemas/live.ts';
import { ApiError, call, send, storeKey } from '../lib/api.ts';
import { nextBarNotice } from '../../src/lib/market-hours.ts';
import { candleData, priceFormat, DOWN, loadCandles, makeChart, toTime, tradeMarkers, UP } from '../lib/charts.ts';
import { $, h, mount, pct, usd } from '../lib/dom.ts';
import { readSse } from '../lib/sse.ts';
import { recallRun, rememberRun } from '../lib/runs.ts';
import { highlightPython } from '../lib/highlight.ts';
import { trainAndWait } from '../lib/train.ts';
import { deployPanel } from './deploy-panel.ts';
import { robustnessPanel, verdictBadge } from './robustness-panel.ts';
import { metaLabelPanel } from './meta-label-panel.ts';
import { optimisationFigures } from './optimize.ts';
import type { OptimizeJobView } from '../../schemas/optimize.ts';

type LoggedTrade = Trade & { period: 'train' | 'test' | 'post' };

export async function startModelPage(): Promise<void> {
  const stem = decodeURIComponent(location.pathname.split('/').pop() ?? '');
  const root = $('#model');
  const [results, code] = await Promise.all([
    call<Results>('GET', `/api/v1/results/${encodeURIComponent(stem)}`).catch((err: unknown) =>
      err instanceof Error ? err : new Error(String(err)),
    ),
    // The page stands without its code: the panel says why it is missing.
    call<ModelCode>('GET', `/api/v1/models/${encodeURIComponent(stem)}/code`).catch((err: unknown) =>
      err instanceof Error ? err : new Error(String(err)),
    ),
  ]);
  if (results instanceof Error) {
    // In place of the loading line, which would otherwise stay beside an error for ever.
    mount(root, unreadable(stem, results));
    return;
  }
  performance.mark('sf:results');
  const from = results.spans.train.from;
  const to = results.spans.post_cutoff?.to ?? results.spans.test.to;
  // The bars download while the page is built.
  const candlesLoading = loadCandles(results.symbol, results.timeframe, from, to);
  const trades: LoggedTrade[] = [...results.trade_log, ...results.pred_trade_log.map((t) => ({ ...t, period: 'post' as const }))];
  const chartBox = h('div', { class: 'chart', id: 'candles' });
  const equityBox = h('div', { class: 'chart small', id: 'equity' });
  const drawdownBox = h('div', { class: 'chart small', id: 'drawdown' });
  const spans = h('div', { class: 'spans' });
  const tradeTable = h('div', { class: 'trades' });
  const feed = h('ol', { class: 'signals', id: 'signal-feed' });
  mount(
    root,
    h('h1', {}, results.model_name, ' ', h('span', { class: 'muted' }, `${results.symbol} ${results.timeframe} · ${results.model_type}`)),
    h('p', { class: 'muted' }, results.title, results.source === 'synthetic' ? ' · prices are synthetic (no real market data loaded)' : ''),
    // The verdict is said at the top: a trader should not have to scroll to learn the edge is not real.
    results.robustness
      ? h(
          'p',
          { class: 'verdict-line' },
          verdictBadge(results.robustness.verdict),
          ' ',
          results.robustness.reasons[0] ?? '',
          ' ',
          h('a', { href: '#robustness' }, 'Why?'),
        )
      : null,
    h(
      'p',
      {},
      h('a', { href: `/models/${encodeURIComponent(stem)}/optimize`, id: 'optimize-link' }, 'Optimise this strategy'),
      h('span', { class: 'muted' }, ' · search its parameters with walk-forward testing and an overfitting check'),
    ),
    results.warnings.length
      ? h(
          'ul',
          { class: 'warnings' },
          results.warnings.map((w) => h('li', {}, w)),
        )
      : null,
    spans,
    chartBox,
    h('h2', {}, 'Equity and drawdown (test span)'),
    equityBox,
    drawdownBox,
    h('h2', {}, 'Statistics'),
    statsTable(results),
    metaLabelPanel(results),
    robustnessPanel(results.robustness, results.settings.capital),
    optimisationBox(stem, results),
    h('h2', {}, 'Trades'),
    tradeTable,
    diagnostics(results),
    h('h2', {}, 'Deploy'),
    deployPanel(stem),
    h('h2', {}, 'Share with the community'),
    sharePanel(stem, results),
    h('h2', {}, 'Live signals'),
    feed,
    codePanel(stem, results, code),
  );

  const candles = await candlesLoading;
  performance.mark('sf:candles');
  const chart = makeChart(chartBox, 420);
  const series = chart.addSeries(CandlestickSeries, {
    upColor: UP,
    downColor: DOWN,
    wickUpColor: UP,
    wickDownColor: DOWN,
    borderVisible: false,
    priceFormat: priceFormat(results.symbol),
  });
  series.setData(candleData(candles));
  const markers = createSeriesMarkers(series, tradeMarkers(trades));
  chartBox.dataset.candles = String(candles.length);
  chartBox.dataset.markers = String(markers.markers().length);

  const levels = levelLines(series, chartBox);
  const spanButtons: [string, { from: string; to: string } | null][] = [
    ['All', { from, to }],
    ['Train', results.spans.train],
    ['Test', results.spans.test],
    ['Post-cutoff', results.spans.post_cutoff],
  ];
  mount(
    spans,
    spanButtons.map(([label, span]) =>
      h(
        'button',
        {
          type: 'button',
          class: 'chip',
          disabled: !span,
          onclick: () => span && chart.timeScale().setVisibleRange({ from: toTime(span.from) as Time, to: toTime(span.to) as Time }),
        },
        label,
      ),
    ),
  );
  chart.timeScale().setVisibleRange({ from: toTime(results.spans.test.from) as Time, to: toTime(to) as Time });

  const equity = makeChart(equityBox, 160);
  equity
    .addSeries(LineSeries, { color: '#38bdf8', lineWidth: 2 })
    .setData(results.equity_curve.map((p) => ({ time: toTime(p.time), value: p.equity })));
  equity.timeScale().fitContent();
  const drawdown = makeChart(drawdownBox, 120);
  drawdown
    .addSeries(AreaSeries, {
      lineColor: DOWN,
      topColor: 'rgba(239,68,68,0.05)',
      bottomColor: 'rgba(239,68,68,0.4)',
      invertFilledArea: true,
    })
    .setData(results.drawdown.map((p) => ({ time: toTime(p.time), value: p.drawdown * 100 })));
  drawdown.timeScale().fitContent();
  if (results.rolling_accuracy.length) {
    const accuracy = makeChart($('#rolling-accuracy'), 120);
    accuracy
      .addSeries(LineSeries, { color: '#a78bfa', lineWidth: 1 })
      .setData(results.rolling_accuracy.map((p) => ({ time: toTime(p.time), value: p.accuracy * 100 })));
    accuracy.timeScale().fitContent();
  }

  tradeList(tradeTable, trades, priceFormat(results.symbol).precision, (t) => {
    levels.show(t);
    chart.timeScale().setVisibleRange({
      from: (toTime(t.entry_time) - 50 * barSeconds(results.timeframe)) as Time,
      to: (toTime(t.exit_time) + 50 * barSeconds(results.timeframe)) as Time,
    });
  });
  const lastTrade = trades[trades.length - 1];
  if (lastTrade) levels.show(lastTrade);
  void liveFeed(stem, results, feed, series);
  performance.mark('sf:drawn');
  document.body.dataset.ready = '1';
}

const barSeconds = (tf: string) => ({ '1min': 60, '5min': 300, '15min': 900, '1h': 3600 })[tf] ?? 900;

/** Stop and take-profit of a trade as price lines, from the model's execution settings. */
/** The selected trade's entry, stop and take-profit lines: the levels the position had, as the engine set them. */
function levelLines(series: ISeriesApi<'Candlestick'>, box: HTMLElement) {
  let lines: IPriceLine[] = [];
  return {
    show(t: Trade) {
      for (const line of lines) series.removePriceLine(line);
      lines = [series.createPriceLine({ price: t.entry_price, color: '#94a3b8', lineStyle: 2, title: 'entry' })];
      if (t.stop_loss !== null) lines.push(series.createPriceLine({ price: t.stop_loss, color: DOWN, lineStyle: 2, title: 'SL' }));
      if (t.take_profit !== null) lines.push(series.createPriceLine({ price: t.take_profit, color: UP, lineStyle: 2, title: 'TP' }));
      box.dataset.levels = lines.map((l) => `${l.options().title}@${l.options().price}`).join(' ');
    },
  };
}

function statsTable(r: Results): HTMLElement {
  const rows: [string, TradeStats | null][] = [
    ['Train', r.metrics.train],
    ['Test', r.metrics.test],
    ['Post-cutoff', r.pred_stats],
    ['Test · long', r.metrics.long],
    ['Test · short', r.metrics.short],
  ];
  return h(
    'table',
    { class: 'stats' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Span', 'Trades', 'Win rate', 'Return', 'Profit factor', 'Max DD', 'Net', 'Expectancy'].map((c) => h('th', {}, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map(([label, s]) =>
        h(
          'tr',
          {},
          h('th', {}, label),
          s
            ? [s.n, pct(s.wr), pct(s.ret, 2), s.pf.toFixed(2), pct(s.mdd, 2), usd(s.np), usd(s.expect)].map((v) => h('td', {}, v))
            : h('td', { colspan: 7 }, '—'),
        ),
      ),
    ),
  );
}

const COLUMNS: [keyof LoggedTrade, string][] = [
  ['period', 'Span'],
  ['side', 'Side'],
  ['entry_time', 'Entry'],
  ['exit_time', 'Exit'],
  ['entry_price', 'Entry price'],
  ['exit_price', 'Exit price'],
  ['exit_reason', 'Exit'],
  ['pips', 'Pips'],
  ['pnl', 'P&L'],
];
const PAGE_SIZE = 25;

/** Sortable (click a heading), paged; clicking a row shows that trade on the chart. */
function tradeList(box: HTMLElement, trades: LoggedTrade[], digits: number, select: (t: LoggedTrade) => void): void {
  let sortKey: keyof LoggedTrade = 'exit_time';
  let descending = true;
  let page = 0;
  const render = () => {
    const sorted = [...trades].sort((a, b) => {
      const x = a[sortKey] as string | number;
      const y = b[sortKey] as string | number;
      return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1);
    });
    const pages = Math.max(1, Math.ceil(sorted.length / PAGE_SIZE));
    page = Math.min(page, pages - 1);
    const shown = sorted.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
    const fmt = (t: LoggedTrade, k: keyof LoggedTrade) => {
      const v = t[k];
      if (k === 'pnl') return usd(v as number);
      if (k === 'pips') return (v as number).toFixed(1);
      if (k === 'entry_price' || k === 'exit_price') return (v as number).toFixed(digits);
      if (typeof v === 'string' && k.endsWith('_time')) return v.slice(0, 16).replace('T', ' ');
      return String(v);
    };
    mount(
      box,
      h(
        'table',
        { class: 'trade-list' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            COLUMNS.map(([k, label]) =>
              h(
                'th',
                {
                  class: 'sortable',
                  onclick: () => {
                    descending = sortKey === k ? !descending : true;
                    sortKey = k;
                    render();
                  },
                },
                label,
                sortKey === k ? (descending ? ' ▾' : ' ▴') : '',
              ),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          shown.map((t) =>
            h(
              'tr',
              { class: t.pnl >= 0 ? 'win' : 'loss', onclick: () => select(t) },
              COLUMNS.map(([k]) => h('td', {}, fmt(t, k))),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'pager' },
        h(
          'button',
          {
            type: 'button',
            disabled: page === 0,
            onclick: () => {
              page--;
              render();
            },
          },
          '‹ Newer',
        ),
        h('span', {}, ` ${trades.length} trades · page ${page + 1} of ${pages} `),
        h(
          'button',
          {
            type: 'button',
            disabled: page >= pages - 1,
            onclick: () => {
              page++;
              render();
            },
          },
          'Older ›',
        ),
      ),
    );
  };
  render();
}

function diagnostics(r: Results): HTMLElement {
  const [[dd, du] = [0, 0], [ud, uu] = [0, 0]] = r.confusion_matrix.matrix as [number, number][];
  // Meta-labelled models call the rule's trades win or loss, not the market up or down.
  const [no, yes] = r.confusion_matrix.labels;
  const meta = yes === 'win';
  const top = r.feature_importance.slice(0, 12);
  const max = Math.max(...top.map((f) => f.importance), 1e-9);
  return h(
    'section',
    { class: 'diagnostics' },
    h('h2', {}, 'Model diagnostics'),
    h(
      'p',
      {},
      `${meta ? "Win/loss accuracy on the rule's trades" : 'Direction accuracy'}: train ${pct(r.accuracy.train)}, test ${pct(r.accuracy.test)}.`,
    ),
    r.rolling_accuracy.length
      ? [h('h3', {}, 'Rolling accuracy (%, previous 100 test rows)'), h('div', { class: 'chart small', id: 'rolling-accuracy' })]
      : null,
    h(
      'table',
      { class: 'confusion' },
      h('tr', {}, h('th', {}, 'actual \\ predicted'), h('th', {}, no), h('th', {}, yes)),
      h('tr', {}, h('th', {}, no), h('td', {}, dd), h('td', {}, du)),
      h('tr', {}, h('th', {}, yes), h('td', {}, ud), h('td', {}, uu)),
    ),
    h(
      'div',
      { class: 'importance' },
      top.map((f) => {
        const bar = h('span', { class: 'imp-bar' });
        bar.style.width = `${(f.importance / max) * 100}%`;
        return h('div', { class: 'imp-row' }, h('span', { class: 'imp-name' }, f.feature), bar);
      }),
    ),
  );
}

/** The code the model was trained from (GET /models/{name}/code), highlighted, editable; Retrain runs POST /train. */
function codePanel(stem: string, r: Results, code: ModelCode | Error): HTMLElement {
  const area = h('textarea', { class: 'code', rows: 18, spellcheck: 'false' }) as HTMLTextAreaElement;
  area.value = code instanceof Error ? '' : code.code;
  const status = h('p', { class: 'muted' });
  const retrain = async () => {
    status.textContent = 'Submitting…';
    try {
      const trained = await trainAndWait(
        { code: area.value, symbol: r.symbol, timeframe: r.timeframe },
        (text) => (status.textContent = text),
      );
      rememberRun(trained, { code: area.value, prompt: recallRun(stem)?.prompt ?? '' });
      location.assign(`/models/${encodeURIComponent(trained)}`);
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  // Read highlighted; Edit swaps in the plain editor.
  const view = h('pre', { class: 'code highlighted' }, highlightPython(area.value));
  area.hidden = true;
  const edit = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: () => {
        view.hidden = true;
        area.hidden = false;
        edit.hidden = true;
        area.focus();
      },
    },
    'Edit',
  );
  return h(
    'section',
    { class: 'code-panel' },
    h('h2', {}, 'Strategy code'),
    code instanceof Error ? h('p', { class: 'error' }, `The code could not be loaded (${code.message}); paste code to retrain.`) : null,
    view,
    area,
    edit,
    h('button', { type: 'button', onclick: () => void retrain() }, 'Retrain'),
    status,
  );
}

/**
 * A model this browser cannot read: most often another account's (made with another browser's or
 * device's key), so the way in is that account — signing in, or the key that made it.
 */
function unreadable(stem: string, err: Error): HTMLElement {
  const status = err instanceof ApiError ? err.status : 0;
  if (status !== 404 && status !== 403 && status !== 401) {
    return h(
      'div',
      { id: 'model-unreadable' },
      h('p', { class: 'error' }, `The model could not be loaded (${err.message}). Reload the page to try again.`),
    );
  }
  const key = h('input', {
    type: 'password',
    id: 'model-key',
    class: 'wide',
    placeholder: 'sf_…',
    autocomplete: 'off',
  }) as HTMLInputElement;
  const useKey = () => {
    const value = key.value.trim();
    if (!value) return;
    storeKey(value);
    location.reload();
  };
  return h(
    'div',
    { class: 'notice', id: 'model-unreadable' },
    h('p', { class: 'error' }, status === 404 ? `This browser's account has no model "${stem}".` : err.message),
    h('p', {}, 'A model belongs to the account whose API key made it, perhaps in another browser or on another device. To open it here:'),
    h(
      'ul',
      {},
      h(
        'li',
        {},
        h('a', { href: '/sign-in', id: 'model-sign-in' }, 'Sign in'),
        ' as that account (a trial account is claimed on its Account page first), or',
      ),
      h(
        'li',
        {},
        'use the key that made it: ',
        key,
        ' ',
        h('button', { type: 'button', id: 'model-use-key', onclick: useKey }, 'Use this key'),
        h('span', { class: 'muted' }, ' (this browser then uses that key instead of its own: keep a copy of yours)'),
      ),
    ),
    h('p', { class: 'muted' }, "This account's own models are on the ", h('a', { href: '/account' }, 'Account page'), '.'),
  );
}

/** The deployment's live signals (SSE with the key), newest first, each also marked on the chart. */
async function liveFeed(stem: string, results: Results, list: HTMLElement, series: ISeriesApi<'Candlestick'>): Promise<void> {
  const deployed = await call<{ deployed: { model: string }[] }>('GET', '/api/v1/deployed');
  if (!deployed.deployed.some((d) => d.model === stem)) {
    mount(list, h('li', { class: 'muted' }, 'Not deployed: deploy it to see live signals here.'));
    return;
  }
  // When the first signal can come: a forex weekend is said, not left to look like a broken feed.
  const next = nextBarNotice(results.symbol, results.timeframe, Date.now());
  const closes = `${next.next_bar_at.slice(0, 16).replace('T', ' ')} UTC`;
  mount(
    list,
    h(
      'li',
      { class: 'muted', id: 'feed-waiting', 'data-next-bar': next.next_bar_at },
      next.note ?? `Waiting for the next bar to close (${closes})…`,
    ),
  );
  // One stream per key: the one_shot stream that led here may still be closing on the server.
  let res = await send('GET', `/api/v1/signals/${encodeURIComponent(stem)}/stream`);
  for (let attempt = 0; res.status === 429 && attempt < 5; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    res = await send('GET', `/api/v1/signals/${encodeURIComponent(stem)}/stream`);
  }
  if (!res.ok) {
    mount(list, h('li', { class: 'error' }, `Live feed unavailable (HTTP ${res.status}).`));
    return;
  }
  await readSse(res, ({ event, data }) => {
    if (event === 'heartbeat') return;
    const s = data as SignalEvent;
    if (!s || typeof s !== 'object' || !('action' in s)) return;
    document.getElementById('feed-waiting')?.remove();
    list.prepend(
      h(
        'li',
        { class: `signal ${s.side}${s.late ? ' late' : ''}`, 'data-id': s.id },
        h('time', {}, s.bar_time.slice(0, 16).replace('T', ' ')),
        ` ${s.action} ${s.side} @ ${s.price}`,
        s.stop_loss !== null ? ` SL ${s.stop_loss}` : '',
        s.take_profit !== null ? ` TP ${s.take_profit}` : '',
        s.late ? ' (late)' : '',
      ),
    );
  });
  void series;
}

/** POST /share: publishes the model's metrics (never its code to readers; forks get a copy). */
function sharePanel(stem: string, r: Results): HTMLElement {
  const title = h('input', { type: 'text', class: 'wide', maxlength: 100, value: r.title }) as HTMLInputElement;
  const status = h('p', { class: 'muted' });
  const share = async () => {
    try {
      const parent = recallRun(stem)?.forked_from;
      const entry = await call<{ community_id: number }>('POST', '/api/v1/share', {
        model_stem: stem,
        title: title.value,
        ...(parent ? { parent_id: parent } : {}),
      });
      location.assign(`/community/${entry.community_id}`);
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  return h(
    'div',
    { class: 'share', id: 'share' },
    h('label', {}, 'Title ', title),
    h('button', { type: 'button', onclick: () => void share() }, 'Share'),
    status,
  );
}

/**
 * For a model saved from an optimisation: that optimisation's trials (in-sample vs out-of-sample
 * scatter) and PBO, linked to its page. The link is the model's own (results.optimization); models
 * saved before it was kept fall back to the one remembered when the model was saved in this browser.
 */
function optimisationBox(stem: string, results: Results): HTMLElement | null {
  const id = results.optimization?.optimize_id ?? recallRun(stem)?.optimized_from;
  if (!id) return null;
  const box = h('div', { id: 'optimisation-box' });
  call<OptimizeJobView>('GET', `/api/v1/optimize/${id}`)
    .then((view) => mount(box, optimisationFigures(view, stem)))
    .catch((err: unknown) =>
      mount(
        box,
        h('p', { class: 'muted' }, `Optimisation ${id} could not be loaded (${err instanceof Error ? err.message : String(err)}).`),
      ),
    );
  return box;
}
