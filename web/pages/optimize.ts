/**
 * The optimisation page (/models/{stem}/optimize): the search space as a form (parameters with
 * ranges or choices, method, trials, objective), POST /optimize, progress over its SSE stream
 * with every trial as it lands, then the result: the chosen trial, every trial, in-sample against
 * out-of-sample (scatter with the degradation line), PBO's logit histogram, the walk-forward steps,
 * the chosen trial's robustness report, and saving it as a model. ?id= reopens a job.
 */
import type { ModelCode, Results } from '../../schemas/training.ts';
import type { OptimizeJobView, OptimizeProgress, OptimizeTrial, TrialMetrics } from '../../schemas/optimize.ts';
import type { ChoiceValue, Objective, ParamSpec } from '../../schemas/optimize-space.ts';
import { ApiError, call, send } from '../lib/api.ts';
import { histogramPlot, binValues, scatterPlot } from '../lib/charts.ts';
import { $, h, mount, pct, usd } from '../lib/dom.ts';
import { readSse } from '../lib/sse.ts';
import { rememberRun } from '../lib/runs.ts';
import { robustnessPanel } from './robustness-panel.ts';

// The names below mirror schemas/optimize-space.ts and schemas/strategy.ts: the browser bundle
// imports only types from schemas/ (no zod at run time), and the service checks every name anyway.
const MODEL_TYPES = [
  'RandomForestClassifier',
  'ExtraTreesClassifier',
  'GradientBoostingClassifier',
  'XGBClassifier',
  'AdaBoostClassifier',
  'LogisticRegression',
];
/** The execution settings (schemas/backtest.ts ExecutionSettings) a model was backtested with: the optimisation runs with the same. */
const EXECUTION_KEYS = [
  'capital',
  'lot_size',
  'leverage',
  'commission',
  'swap_long',
  'swap_short',
  'risk_unit',
  'stop_loss',
  'take_profit',
  'fill_at_bid_ask',
  'intrabar',
] as const;

type Kind = ParamSpec['type'];
interface Row {
  on: boolean;
  name: string;
  kind: Kind;
  low: string;
  high: string;
  step: string;
  values: string;
  hint: string;
}

/** The parameters a trader tunes most, offered with ranges to start from; the first three are on. */
function defaultRows(riskUnit: string): Row[] {
  const row = (on: boolean, name: string, kind: Kind, low: string, high: string, step: string, values: string, hint: string): Row => ({
    on,
    name,
    kind,
    low,
    high,
    step,
    values,
    hint,
  });
  return [
    row(true, 'confidence_threshold', 'float', '0.5', '0.8', '0.05', '', 'signal threshold (engine only: no retrain)'),
    row(true, 'stop_loss', 'float', '10', '40', '10', '', `in ${riskUnit} (engine only)`),
    row(true, 'take_profit', 'float', '20', '80', '20', '', `in ${riskUnit} (engine only)`),
    row(false, 'trailing_stop', 'float', '1', '3', '0.5', '', 'in the strategy’s own trailing unit (engine only)'),
    row(false, 'cooldown', 'int', '0', '6', '2', '', 'bars between trades (engine only)'),
    row(false, 'direction', 'choice', '', '', '', 'both, long, short', 'engine only'),
    row(false, 'on_opposite', 'choice', '', '', '', 'reverse, close_only, ignore', 'engine only'),
    row(false, 'max_positions', 'int', '1', '3', '1', '', 'engine only'),
    row(false, 'session_filter', 'choice', '', '', '', '[null, [7, 16], [12, 20]]', 'UTC hours [start, end], null = all day (engine only)'),
    row(false, 'model_type', 'choice', '', '', '', MODEL_TYPES.slice(0, 3).join(', '), 'a retrain per value'),
    row(false, 'model_params.n_estimators', 'int', '50', '250', '50', '', 'a retrain per value'),
    row(false, 'model_params.max_depth', 'int', '3', '9', '2', '', 'a retrain per value'),
  ];
}

/** "reverse, close_only" or a JSON list ("[null, [7, 16]]"): the values of a choice. */
export function parseChoices(text: string): ChoiceValue[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed)) throw new Error('a JSON list of values is expected');
    return parsed as ChoiceValue[];
  }
  return trimmed
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) =>
      t === 'null' || t === 'none' ? null : t === 'true' ? true : t === 'false' ? false : Number.isFinite(Number(t)) ? Number(t) : t,
    );
}

function specOf(row: Row): ParamSpec {
  if (row.kind === 'choice') {
    let values: ChoiceValue[];
    try {
      values = parseChoices(row.values);
    } catch (err) {
      throw new Error(`${row.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!values.length) throw new Error(`${row.name}: list at least one value`);
    return { type: 'choice', values };
  }
  const low = Number(row.low);
  const high = Number(row.high);
  if (row.low.trim() === '' || row.high.trim() === '' || !Number.isFinite(low) || !Number.isFinite(high))
    throw new Error(`${row.name}: give a low and a high number`);
  const step = row.step.trim() === '' ? undefined : Number(row.step);
  if (step !== undefined && !(step > 0)) throw new Error(`${row.name}: the step must be a number above 0`);
  return row.kind === 'int'
    ? { type: 'int', low, high, ...(step === undefined ? {} : { step }) }
    : { type: 'float', low, high, ...(step === undefined ? {} : { step }) };
}

/** Values a spec has on a grid (null: not countable, a range without a step). */
function gridCount(spec: ParamSpec): number | null {
  if (spec.type === 'choice') return spec.values.length;
  const step = spec.step ?? (spec.type === 'int' ? 1 : undefined);
  if (step === undefined) return null;
  return Math.max(0, Math.floor((spec.high - spec.low) / step + 1e-9) + 1);
}

const fmtValue = (v: ChoiceValue): string =>
  v === null ? 'none' : Array.isArray(v) ? `[${v.join(', ')}]` : typeof v === 'number' ? String(Number(v.toPrecision(6))) : String(v);
const fmtParams = (params: Record<string, ChoiceValue>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${fmtValue(v)}`)
    .join(' · ');

const PCT_METRICS = new Set(['ret', 'wr', 'mdd', 'avg', 'best', 'worst']);
const USD_METRICS = new Set(['np', 'expect']);
function fmtMetric(metric: string, v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (PCT_METRICS.has(metric)) return pct(v, 2);
  if (USD_METRICS.has(metric)) return usd(v);
  if (metric === 'n' || metric === 'wins' || metric === 'losses') return String(v);
  return v.toFixed(metric === 'sharpe' ? 4 : 2);
}
const metricOf = (m: TrialMetrics | null, metric: string): number | null =>
  m ? ((m as unknown as Record<string, number>)[metric] ?? null) : null;
/** Profit factor and reward/risk are 999 with no losing trade: plotted at this cap so the other trials stay readable. */
const RATIO_CAP = 10;
const capped = (metric: string) => metric === 'pf' || metric === 'rr';
const plotted = (metric: string, v: number) => (capped(metric) ? Math.min(v, RATIO_CAP) : v);

export async function startOptimizePage(): Promise<void> {
  const parts = location.pathname.split('/');
  const stem = decodeURIComponent(parts[parts.length - 2] ?? '');
  const root = $('#optimize');
  const [results, code] = await Promise.all([
    call<Results>('GET', `/api/v1/results/${encodeURIComponent(stem)}`),
    call<ModelCode>('GET', `/api/v1/models/${encodeURIComponent(stem)}/code`).catch((err: unknown) =>
      err instanceof Error ? err : new Error(String(err)),
    ),
  ]);
  const job = h('section', { id: 'optimize-job' });
  const resume = new URLSearchParams(location.search).get('id');
  mount(
    root,
    h(
      'h1',
      {},
      'Optimise ',
      h('a', { href: `/models/${encodeURIComponent(stem)}` }, results.model_name),
      ' ',
      h('span', { class: 'muted' }, `${results.symbol} ${results.timeframe}`),
    ),
    h(
      'p',
      { class: 'muted' },
      'Each trial is scored on walk-forward folds: parameters are chosen in-sample, and the last fold, which no choice looks at, says how they hold up out of sample. ' +
        'Engine parameters (levels, threshold, position rules, filters) reuse the model’s probabilities; model parameters retrain it for every value.',
    ),
    code instanceof Error
      ? h('p', { class: 'error' }, `The model’s code could not be loaded (${code.message}): an optimisation needs it.`)
      : searchForm(stem, results, code.code, job),
    job,
  );
  if (resume && /^\d+$/.test(resume)) await follow(Number(resume), stem, results, job);
  document.body.dataset.ready = '1';
}

function searchForm(stem: string, results: Results, code: string, job: HTMLElement): HTMLElement {
  const rows = defaultRows(results.settings.risk_unit);
  const table = h('tbody', {});
  const size = h('span', { class: 'muted', id: 'space-size' });
  const status = h('p', { class: 'muted', id: 'optimize-status' });
  const method = h(
    'select',
    { name: 'method' },
    ['tpe', 'random', 'grid'].map((m) => h('option', { value: m }, m)),
  ) as HTMLSelectElement;
  const trials = h('input', { type: 'number', name: 'trials', min: 1, max: 10000, value: 30, class: 'narrow' }) as HTMLInputElement;
  const objective = h('input', {
    type: 'text',
    name: 'optimization',
    class: 'wide',
    maxlength: 300,
    value: 'maximise profit factor with at least 10 trades',
  }) as HTMLInputElement;
  const folds = h('input', { type: 'number', name: 'folds', min: 2, max: 10, value: 5, class: 'narrow' }) as HTMLInputElement;
  const scheme = h(
    'select',
    { name: 'scheme' },
    ['anchored', 'rolling'].map((s) => h('option', { value: s }, s)),
  ) as HTMLSelectElement;
  const seed = h('input', { type: 'number', name: 'seed', min: 0, value: 0, class: 'narrow' }) as HTMLInputElement;

  const updateSize = () => {
    try {
      const on = rows.filter((r) => r.on);
      if (!on.length) return void (size.textContent = 'Choose at least one parameter.');
      const counts = on.map((r) => gridCount(specOf(r)));
      const grid = counts.every((c) => c !== null) ? counts.reduce<number>((a, c) => a * c!, 1) : null;
      size.textContent =
        method.value === 'grid'
          ? grid === null
            ? 'A grid needs a step on every range.'
            : `A grid of ${grid.toLocaleString('en')} combinations.`
          : `${Number(trials.value).toLocaleString('en')} trials drawn from ${grid === null ? 'a continuous space' : `${grid.toLocaleString('en')} combinations`}.`;
    } catch (err) {
      size.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  const input = (row: Row, field: 'low' | 'high' | 'step' | 'values' | 'name', attrs: Record<string, string | number> = {}) => {
    const el = h('input', { type: 'text', value: row[field], 'data-field': field, ...attrs }) as HTMLInputElement;
    el.addEventListener('input', () => {
      row[field] = el.value;
      updateSize();
    });
    return el;
  };
  const render = () => {
    mount(
      table,
      rows.map((row) => {
        const on = h('input', { type: 'checkbox', checked: row.on, 'aria-label': `search ${row.name}` }) as HTMLInputElement;
        on.addEventListener('change', () => {
          row.on = on.checked;
          updateSize();
        });
        const kind = h(
          'select',
          {},
          (['int', 'float', 'choice'] as const).map((k) => h('option', { value: k, selected: row.kind === k }, k)),
        ) as HTMLSelectElement;
        kind.addEventListener('change', () => {
          row.kind = kind.value as Kind;
          render();
        });
        const ranged = row.kind !== 'choice';
        return h(
          'tr',
          { 'data-param': row.name },
          h('td', {}, on),
          h(
            'td',
            {},
            row.hint === 'custom'
              ? input(row, 'name', { placeholder: 'indicators.rsi_period', class: 'param-name' })
              : h('code', {}, row.name),
          ),
          h('td', {}, kind),
          ranged
            ? [
                h('td', {}, input(row, 'low', { class: 'narrow' })),
                h('td', {}, input(row, 'high', { class: 'narrow' })),
                h('td', {}, input(row, 'step', { class: 'narrow', placeholder: 'none' })),
              ]
            : h('td', { colspan: 3 }, input(row, 'values', { class: 'wide' })),
          h('td', { class: 'muted' }, row.hint === 'custom' ? 'your parameter' : row.hint),
        );
      }),
    );
    updateSize();
  };
  method.addEventListener('change', updateSize);
  trials.addEventListener('input', updateSize);
  const addRow = () => {
    rows.push({ on: true, name: '', kind: 'int', low: '', high: '', step: '1', values: '', hint: 'custom' });
    render();
  };
  const start = async (button: HTMLButtonElement) => {
    let body: Record<string, unknown>;
    try {
      const parameters: Record<string, ParamSpec> = {};
      for (const row of rows.filter((r) => r.on)) {
        if (!row.name.trim()) throw new Error('Name every parameter you added (e.g. indicators.rsi_period).');
        parameters[row.name.trim()] = specOf(row);
      }
      if (!Object.keys(parameters).length) throw new Error('Choose at least one parameter to search.');
      const settings = Object.fromEntries(
        EXECUTION_KEYS.flatMap((k) => (k in results.settings ? [[k, (results.settings as Record<string, unknown>)[k]]] : [])),
      );
      body = {
        code,
        symbol: results.symbol,
        timeframe: results.timeframe,
        start_date: results.spans.train.from.slice(0, 10),
        end_date: results.spans.test.to.slice(0, 10),
        parameters,
        method: method.value,
        ...(method.value === 'grid' && trials.value === '' ? {} : { trials: Number(trials.value) }),
        seed: Number(seed.value) || 0,
        optimization: objective.value.trim() || 'sharpe',
        walk_forward: { folds: Number(folds.value), scheme: scheme.value, embargo: 0 },
        ...settings,
      };
    } catch (err) {
      status.className = 'error';
      status.textContent = err instanceof Error ? err.message : String(err);
      return;
    }
    button.disabled = true;
    status.className = 'muted';
    status.textContent = 'Starting…';
    try {
      const started = await call<{ optimize_id: number; trials_planned: number; credits_charged: number; objective: Objective }>(
        'POST',
        '/api/v1/optimize',
        body,
      );
      status.textContent = `Optimisation ${started.optimize_id}: ${started.trials_planned} trials, ${started.credits_charged} credits charged.`;
      history.replaceState(null, '', `?id=${started.optimize_id}`);
      await follow(started.optimize_id, stem, results, job, started.objective);
    } catch (err) {
      status.className = 'error';
      status.textContent =
        err instanceof ApiError ? `${err.message} (HTTP ${err.status})` : err instanceof Error ? err.message : String(err);
    } finally {
      button.disabled = false;
    }
  };
  const startButton = h('button', { type: 'button', id: 'start-optimize' }, 'Start the optimisation') as HTMLButtonElement;
  startButton.addEventListener('click', () => void start(startButton));
  render();
  return h(
    'form',
    { class: 'optimize-form', id: 'optimize-form', onsubmit: (e: Event) => e.preventDefault() },
    h('h2', {}, 'Search space'),
    h(
      'table',
      { class: 'space' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['', 'Parameter', 'Kind', 'Low', 'High', 'Step', ''].map((c) => h('th', {}, c)),
        ),
      ),
      table,
    ),
    h(
      'p',
      { class: 'muted' },
      'A choice lists its values separated by commas (none = null), or as a JSON list when a value is itself a list.',
    ),
    h('button', { type: 'button', class: 'secondary', onclick: addRow }, 'Add a parameter'),
    h('h2', {}, 'Search'),
    h(
      'div',
      { class: 'row' },
      h('label', {}, 'Method ', method),
      h('label', {}, 'Trials ', trials),
      h('label', {}, 'Seed ', seed),
      h('label', {}, 'Walk-forward folds ', folds),
      h('label', {}, 'Scheme ', scheme),
    ),
    h('label', { class: 'objective' }, 'Objective ', objective),
    h(
      'p',
      { class: 'muted' },
      'A metric (pf, sharpe, ret, wr, expect, mdd, n …) or plain words, e.g. “maximise profit factor with drawdown under 10 %”: one metric is optimised, the rest are constraints.',
    ),
    h('p', {}, size),
    startButton,
    status,
  );
}

/** Follows a job: its stream until done (or GET when it is over), drawing progress, then the result. */
async function follow(id: number, stem: string, results: Results, box: HTMLElement, objective?: Objective): Promise<void> {
  const trials = new Map<number, OptimizeTrial>();
  const fill = h('div', { class: 'fill' });
  const stage = h('p', { class: 'muted', id: 'optimize-stage' });
  const echo = h('p', { id: 'objective-echo' }, objective ? `Objective read as: ${objective.echo}` : '');
  const best = h('p', { id: 'best-so-far' });
  const live = h('div', { id: 'live-trials' });
  const cancel = h('button', { type: 'button', class: 'secondary', id: 'cancel-optimize' }, 'Cancel') as HTMLButtonElement;
  let metric = objective?.metric ?? 'value';
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    void call('DELETE', `/api/v1/optimize/${id}`).catch(
      (err: unknown) => (stage.textContent = err instanceof Error ? err.message : String(err)),
    );
  });
  mount(
    box,
    h('h2', {}, `Optimisation ${id}`),
    echo,
    h('div', { class: 'progress' }, h('div', { class: 'bar' }, fill)),
    stage,
    best,
    cancel,
    live,
  );
  box.dataset.optimizeId = String(id);

  const showProgress = (p: OptimizeProgress) => {
    const ran = p.trials_done + p.trials_failed;
    fill.style.width = `${p.trials_planned ? Math.min(100, (ran / p.trials_planned) * 100) : 0}%`;
    stage.textContent = `${p.status}${p.stage ? ` — ${p.stage}` : ''} · ${ran} of ${p.trials_planned} trials run${p.trials_failed ? `, ${p.trials_failed} failed` : ''}`;
    box.dataset.status = p.status;
    box.dataset.trialsRun = String(ran);
    if (p.best_value !== null) best.textContent = `Best in-sample ${metric} so far: ${fmtMetric(metric, p.best_value)}`;
    if (p.last_trial) {
      trials.set(p.last_trial.trial, p.last_trial);
      mount(live, trialTable([...trials.values()], null, metric));
    }
  };

  let view: OptimizeJobView | null = null;
  const res = await send('GET', `/api/v1/optimize/${id}/stream`);
  if (res.ok) {
    await readSse(res, ({ event, data }) => {
      if (event === 'progress') showProgress(data as OptimizeProgress);
      else if (event === 'done') view = data as OptimizeJobView;
    });
  }
  // A stream that ended early (or was refused) still leaves the job readable.
  let final: OptimizeJobView = view ?? (await call<OptimizeJobView>('GET', `/api/v1/optimize/${id}`));
  // The refund of trials not run is written just after the job ends, and the stream's done frame
  // can come first: read the job again (briefly) so the page does not show a refund as missing.
  for (
    let i = 0;
    i < 5 &&
    (final.status === 'cancelled' || final.status === 'failed') &&
    !final.credits_refunded &&
    final.trials_done + final.trials_failed < final.trials_planned;
    i++
  ) {
    await new Promise((r) => setTimeout(r, 1000));
    final = await call<OptimizeJobView>('GET', `/api/v1/optimize/${id}`);
  }
  metric = final.objective.metric;
  echo.textContent = `Objective read as: ${final.objective.echo}`;
  if (final.status === 'queued' || final.status === 'running') {
    // The stream closed while the job still runs: read it again shortly.
    const objective = final.objective;
    setTimeout(() => void follow(id, stem, results, box, objective), 2000);
    return;
  }
  showResult(final, stem, results, box);
}

function trialTable(trials: OptimizeTrial[], chosen: number | null, metric: string): HTMLElement {
  if (!trials.length) return h('p', { class: 'muted trials' }, 'No trial ran.');
  const PAGE = 50;
  let page = 0;
  let sortBy: 'trial' | 'in' | 'out' = 'trial';
  const box = h('div', { class: 'trials' });
  const key = (t: OptimizeTrial) =>
    sortBy === 'trial' ? -t.trial : sortBy === 'in' ? (t.value ?? -Infinity) : (metricOf(t.out_of_sample, metric) ?? -Infinity);
  const render = () => {
    const sorted = [...trials].sort((a, b) => key(b) - key(a));
    const pages = Math.max(1, Math.ceil(sorted.length / PAGE));
    page = Math.min(page, pages - 1);
    const heading = (label: string, by: typeof sortBy) =>
      h(
        'th',
        {
          class: 'sortable',
          onclick: () => {
            sortBy = by;
            page = 0;
            render();
          },
        },
        label,
        sortBy === by ? ' ▾' : '',
      );
    mount(
      box,
      h(
        'table',
        { class: 'stats trial-list' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            heading('Trial', 'trial'),
            h('th', {}, 'State'),
            h('th', {}, 'Parameters'),
            heading(`In-sample ${metric}`, 'in'),
            heading(`Out-of-sample ${metric}`, 'out'),
            h('th', {}, 'OOS return'),
            h('th', {}, 'OOS trades'),
            h('th', {}, 'Feasible'),
          ),
        ),
        h(
          'tbody',
          {},
          sorted
            .slice(page * PAGE, (page + 1) * PAGE)
            .map((t) =>
              h(
                'tr',
                { class: `${t.trial === chosen ? 'chosen' : ''} ${t.state}`, 'data-trial': t.trial },
                h('td', {}, `#${t.trial}`, t.trial === chosen ? ' ★' : ''),
                h('td', {}, t.state),
                h('td', { class: 'params' }, fmtParams(t.params), t.error ? h('div', { class: 'error' }, t.error) : null),
                h('td', {}, fmtMetric(metric, t.value)),
                h('td', {}, fmtMetric(metric, metricOf(t.out_of_sample, metric))),
                h('td', {}, t.out_of_sample ? pct(t.out_of_sample.ret, 2) : '—'),
                h('td', {}, t.out_of_sample ? t.out_of_sample.n : '—'),
                h('td', {}, t.feasible === null ? '—' : t.feasible ? 'yes' : 'no'),
              ),
            ),
        ),
      ),
      pages > 1
        ? h(
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
              '‹',
            ),
            h('span', {}, ` ${trials.length} trials · page ${page + 1} of ${pages} `),
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
              '›',
            ),
          )
        : null,
    );
  };
  render();
  return box;
}

function showResult(view: OptimizeJobView, stem: string, results: Results, box: HTMLElement): void {
  const metric = view.objective.metric;
  const chosen = view.trials.find((t) => t.trial === view.chosen_trial) ?? null;
  box.dataset.status = view.status;
  box.dataset.trialsRun = String(view.trials_done + view.trials_failed);
  mount(
    box,
    h('h2', {}, `Optimisation ${view.optimize_id}: ${view.status}`),
    h('p', { id: 'objective-echo' }, `Objective read as: ${view.objective.echo}`),
    h(
      'p',
      { class: 'muted', id: 'optimize-summary' },
      `${view.method} · ${view.trials_done} trials done, ${view.trials_failed} failed of ${view.trials_planned} · ${view.credits_charged} credits charged`,
      view.credits_refunded ? `, ${view.credits_refunded} refunded` : '',
    ),
    view.error ? h('p', { class: 'error' }, view.error) : null,
    chosen
      ? h(
          'div',
          { class: 'notice chosen-trial', id: 'chosen-trial' },
          h('p', {}, h('strong', {}, `Chosen: trial #${chosen.trial}`), ` — ${fmtParams(chosen.params)}`),
          h(
            'p',
            {},
            `In-sample ${metric} ${fmtMetric(metric, chosen.value)}; out of sample ${fmtMetric(metric, metricOf(chosen.out_of_sample, metric))} (return ${chosen.out_of_sample ? pct(chosen.out_of_sample.ret, 2) : '—'} over ${chosen.out_of_sample?.n ?? 0} trades).`,
          ),
          view.saved ? savedNote(view.saved.model_stem, view.saved.train_job_id) : saveForm(view, results.model_name),
        )
      : view.status === 'done'
        ? h('p', { class: 'error', id: 'chosen-trial' }, 'No trial met the objective’s constraints: nothing was chosen.')
        : null,
    scatterSection(view),
    pboPanel(view),
    walkForwardSteps(view, results.settings.capital),
    h('h3', {}, 'Every trial'),
    trialTable(view.trials, view.chosen_trial, metric),
    view.robustness ? robustnessPanel(view.robustness, results.settings.capital) : null,
  );
}

/** Each trial's in-sample score against its out-of-sample one, with the diagonal and the degradation line. */
function scatterSection(view: OptimizeJobView): HTMLElement {
  const metric = view.objective.metric;
  const scored = view.trials.filter((t) => t.value !== null && t.out_of_sample);
  return h(
    'div',
    { id: 'is-oos' },
    h('h3', {}, 'In sample against out of sample'),
    scored.length
      ? [
          scatterPlot(
            scored.map((t) => {
              const out = metricOf(t.out_of_sample, metric) ?? 0;
              const title = `#${t.trial}: ${fmtParams(t.params)} · in-sample ${fmtMetric(metric, t.value)}, out of sample ${fmtMetric(metric, out)}`;
              return {
                x: plotted(metric, t.value!),
                y: plotted(metric, out),
                title,
                highlighted: t.trial === view.chosen_trial,
                id: String(t.trial),
              };
            }),
            {
              label: `Each trial's in-sample ${metric} against its out-of-sample ${metric}`,
              xTitle: `in-sample ${metric}`,
              yTitle: `out-of-sample ${metric}`,
              xFormat: (v) => fmtMetric(metric, v),
              yFormat: (v) => fmtMetric(metric, v),
              diagonal: true,
              fit: view.degradation ? { slope: view.degradation.slope, intercept: view.degradation.intercept } : undefined,
            },
          ),
          h(
            'p',
            { class: 'muted', id: 'degradation' },
            view.degradation
              ? `Degradation slope ${view.degradation.slope.toFixed(2)} over ${view.degradation.points} trials: near 1 the in-sample ranking holds out of sample; at 0 or below, a better in-sample score says nothing (or the opposite) about out of sample.`
              : 'Too few trials for a degradation line.',
            capped(metric) && scored.some((t) => Math.max(t.value!, metricOf(t.out_of_sample, metric) ?? 0) > RATIO_CAP)
              ? ` Values above ${RATIO_CAP} (999 = no losing trade) are drawn at ${RATIO_CAP}.`
              : '',
          ),
        ]
      : h('p', { class: 'muted' }, 'No trial has both an in-sample and an out-of-sample score.'),
  );
}

/**
 * What an optimisation says about the model saved from it (the model page's section): the
 * in-sample vs out-of-sample scatter and PBO's logits, with a link to the whole job.
 */
export function optimisationFigures(view: OptimizeJobView, stem: string): HTMLElement {
  return h(
    'section',
    { id: 'optimisation', class: 'optimisation' },
    h(
      'h2',
      {},
      'From optimisation ',
      h('a', { href: `/models/${encodeURIComponent(stem)}/optimize?id=${view.optimize_id}` }, `#${view.optimize_id}`),
    ),
    h(
      'p',
      { class: 'muted' },
      `Trial #${view.chosen_trial ?? '—'} of ${view.trials_done + view.trials_failed} (${view.method}); objective: ${view.objective.echo}`,
    ),
    scatterSection(view),
    pboPanel(view),
  );
}

function pboPanel(view: OptimizeJobView): HTMLElement {
  const pbo = view.pbo;
  if (!pbo)
    return h(
      'div',
      { id: 'pbo' },
      h('h3', {}, 'Probability of backtest overfitting'),
      h('p', { class: 'muted' }, 'Not computed (too few trials or time slices).'),
    );
  return h(
    'div',
    { id: 'pbo' },
    h('h3', {}, 'Probability of backtest overfitting'),
    h(
      'p',
      { id: 'pbo-value' },
      h('strong', { class: pbo.pbo > 0.5 ? 'down' : 'up' }, `PBO ${pbo.pbo.toFixed(2)}`),
      ` — over ${pbo.logits.length} splits of ${pbo.slices} time slices, the trial best in-sample ranked below the median out of sample ${pct(pbo.pbo, 0)} of the time` +
        (pbo.pbo > 0.5 ? ': the selection is more likely luck than skill.' : '.'),
    ),
    pbo.logits.length
      ? histogramPlot(binValues(pbo.logits, 20), {
          label: 'Logits of the in-sample best trial’s out-of-sample rank',
          xTitle: 'λ (logit of the out-of-sample rank; left of 0 = below the median)',
          xFormat: (v) => v.toFixed(1),
          mark: { value: 0, label: 'median', color: '#94a3b8' },
        })
      : null,
  );
}

function walkForwardSteps(view: OptimizeJobView, capital: number): HTMLElement | null {
  const wf = view.walk_forward;
  if (!wf) return null;
  return h(
    'div',
    { id: 'wfo-steps' },
    h('h3', {}, 'Walk-forward optimisation'),
    h(
      'p',
      {},
      `Stitched out-of-sample return ${pct(wf.oos_return, 2)} (${usd(wf.oos_return * capital)} on ${usd(capital)}): each step chose its parameters on the folds before it and was tested on the next.`,
    ),
    h(
      'table',
      { class: 'stats' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Step', 'Chosen on', 'Tested on', 'Trial', 'Return'].map((c) => h('th', {}, c)),
        ),
      ),
      h(
        'tbody',
        {},
        wf.steps.map((s, i) =>
          h(
            'tr',
            {},
            h('td', {}, i + 1),
            h('td', {}, `${s.in_sample.from.slice(0, 10)} → ${s.in_sample.to.slice(0, 10)}`),
            h('td', {}, `${s.out_of_sample.from.slice(0, 10)} → ${s.out_of_sample.to.slice(0, 10)}`),
            h('td', {}, s.chosen_trial === null ? 'none feasible' : `#${s.chosen_trial}`),
            h('td', { class: s.return > 0 ? 'up' : 'down' }, pct(s.return, 2)),
          ),
        ),
      ),
    ),
  );
}

const savedNote = (stem: string, jobId: number) =>
  h(
    'p',
    { id: 'saved-model' },
    'Saved as ',
    h('a', { href: `/models/${encodeURIComponent(stem)}` }, stem),
    h('span', { class: 'muted' }, ` (train job ${jobId})`),
  );

/** POST /optimize/{id}/save: the chosen trial trained as a model; its page opens when training is done. */
function saveForm(view: OptimizeJobView, modelName: string): HTMLElement {
  const name = h('input', {
    type: 'text',
    class: 'wide',
    id: 'save-name',
    maxlength: 60,
    value: `${modelName.slice(0, 48)} opt ${view.optimize_id}`,
  }) as HTMLInputElement;
  const status = h('p', { class: 'muted', id: 'save-status' });
  const button = h('button', { type: 'button', id: 'save-trial' }, 'Save the chosen trial as a model') as HTMLButtonElement;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await call<OptimizeJobView>('POST', `/api/v1/optimize/${view.optimize_id}/save`, { model_name: name.value.trim() });
      const saved = answer.saved;
      if (!saved) throw new Error('the service did not say which model it saved');
      mount(status, 'Saved as ', h('a', { href: `/models/${encodeURIComponent(saved.model_stem)}` }, saved.model_stem), ': training…');
      rememberRun(saved.model_stem, {
        code: '',
        prompt: `optimisation ${view.optimize_id}, trial ${view.chosen_trial}`,
        optimized_from: view.optimize_id,
      });
      for (;;) {
        const job = await call<{ status: string; stage?: string | null; error?: string | null }>(
          'GET',
          `/api/v1/train/${saved.train_job_id}`,
        );
        status.textContent = `Training ${saved.model_stem}: ${job.status}${job.stage ? ` — ${job.stage}` : ''}`;
        if (job.status === 'failed') throw new Error(job.error ?? 'the training failed');
        if (job.status === 'done') break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      location.assign(`/models/${encodeURIComponent(saved.model_stem)}`);
    } catch (err) {
      status.className = 'error';
      status.textContent = err instanceof Error ? err.message : String(err);
      button.disabled = false;
    }
  });
  return h('div', { class: 'save' }, h('label', {}, 'Model name ', name), button, status);
}
