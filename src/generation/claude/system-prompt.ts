/**
 * The system prompt: the whole strategy code contract, built from the same sources the checks
 * use (the StrategyConfig schema, the indicator registry), so the model is told exactly what
 * the checker will hold it to. It is identical for every request, so it is sent with
 * `cache_control: ephemeral` and read from the prompt cache after the first call.
 */
import { z } from 'zod';
import { INDICATOR_LIST, pandasCode } from '../../indicators/index.ts';
import { StrategyConfig } from '../../../schemas/strategy.ts';

type Json = Record<string, any>;

/** Python spelling of a JSON value in a bound or enum. */
const py = (v: unknown): string => (v === null ? 'None' : v === true ? 'True' : v === false ? 'False' : JSON.stringify(v));

/** One JSON Schema node as a short phrase: `integer 1..500`, `"l1" | "l2" or None`. */
function phrase(node: Json): string {
  if (node.anyOf) return (node.anyOf as Json[]).map(phrase).join(' or ');
  if ('const' in node) return py(node.const);
  if (node.enum) return (node.enum as unknown[]).map(py).join(' | ');
  switch (node.type) {
    case 'null':
      return 'None';
    case 'boolean':
      return 'True/False';
    case 'integer':
    case 'number': {
      const lo = node.exclusiveMinimum !== undefined ? `>${node.exclusiveMinimum}` : node.minimum;
      const hi = node.maximum;
      return `${node.type === 'integer' ? 'int' : 'float'}${lo !== undefined || hi !== undefined ? ` ${lo ?? ''}..${hi ?? ''}` : ''}`;
    }
    case 'string':
      return `str${node.maxLength !== undefined ? ` of ${node.minLength ? `${node.minLength}-` : 'at most '}${node.maxLength} chars` : ''}${node.pattern ? ', one line' : ''}`;
    case 'array':
      return node.prefixItems ? `[${(node.prefixItems as Json[]).map(phrase).join(', ')}]` : 'list';
    case 'object': {
      const required = new Set<string>(node.required ?? []);
      const entries = Object.entries<Json>(node.properties ?? {}).map(
        ([k, n]) =>
          `"${k}": ${phrase(n)}${required.has(k) ? '' : ` (optional${n.default !== undefined ? `, default ${py(n.default)}` : ''})`}`,
      );
      return entries.length ? `{${entries.join(', ')}}` : 'dict';
    }
    default:
      return 'value';
  }
}

const refused = (node: Json) => node.not !== undefined;

/** The strategy_config() keys and every model's model_params, from the schema. */
function configSection(): string {
  // The input side: what the code may write (a key with a default may be left out).
  const schema = z.toJSONSchema(StrategyConfig, { io: 'input' }) as Json;
  const root: Json = schema.$defs?.StrategyConfig ?? schema;
  const members: Json[] = root.oneOf ?? root.anyOf ?? [];
  const first = members[0]!;
  const keys = Object.entries<Json>(first.properties)
    .filter(([k]) => k !== 'model_params')
    .map(([k, node]) => {
      const value = k === 'model_type' ? members.map((m) => py(m.properties.model_type.const)).join(' | ') : phrase(node);
      return `- ${k}: ${value}${node.description ? ` (${node.description.split(' (not expressible')[0]})` : ''}`;
    });
  const params = members.map((m) => {
    const entries = Object.entries<Json>(m.properties.model_params.properties);
    const allowed = entries.filter(([, n]) => !refused(n)).map(([k, n]) => `${k} ${phrase(n)}`);
    const banned = entries.filter(([, n]) => refused(n)).map(([k]) => k);
    return `- ${m.properties.model_type.const}: ${allowed.join('; ')}. Never: ${banned.join(', ')}`;
  });
  return [
    'strategy_config() takes no arguments and returns a dict literal with EXACTLY these keys, all present, no others (Python values):',
    '- model_params: dict; only the keys listed for its model_type, each within its bounds; leave a key out to take its default',
    ...keys,
    '',
    'model_params per model_type (every key optional; any other key is refused; None is not a valid max_depth):',
    ...params,
    'n_jobs, random_state, verbosity, verbose, nthread and seed are set by the trainer: never write them.',
  ].join('\n');
}

/** The registry's pandas conventions: each indicator's exact code with its default parameters. */
function indicatorSection(): string {
  const lines = INDICATOR_LIST.map((i) => {
    const params = i.info.params.map((p) => `${p.key}=${p.default} (${p.min}..${p.max})`).join(', ');
    return `- ${i.name} (${i.info.label}): ${i.info.description} Columns: ${i.info.columns.patterns.join(', ')}. Params: ${params}.`;
  });
  const defaults = pandasCode(INDICATOR_LIST.map((i) => ({ name: i.name, params: {} })));
  return [
    'Built-in indicators. Compute them exactly as below (pandas ewm with adjust=False, Wilder smoothing as alpha=1/period,',
    'rolling std with ddof=0 for Bollinger Bands) and name the columns as the registry does:',
    ...lines,
    'Column naming: <indicator>[_<output>]_<parameter values in declared order>, joined by _, a decimal point written as p (bb_std 2.5 gives bb_upper_20_2p5).',
    'The registry code with default parameters (temporaries start with _<name>_; the .mask(...) of the warm-up bars is optional in a strategy, since the final fill replaces those NaNs):',
    '```python',
    defaults.trimEnd(),
    '```',
  ].join('\n');
}

const CONTRACT = `You write trading strategy code for signalforge, a forex strategy service. The code is a Python file
(Framework v2) that the service trains a classifier from and backtests walk-forward. Follow this contract exactly:
every rule is checked by a static analyser, and code that breaks one is sent back to you with the violations.

ANSWER FORMAT
- Reply with ONE fenced code block (\`\`\`python ... \`\`\`) holding the whole file, and nothing else: no prose before or after.
- The first line of the file is the header line given in the request, exactly as given:
  # signalforge: symbol=<SYMBOL> timeframe=<TIMEFRAME>

FILE SHAPE
- The module level holds only: imports, the two functions, docstrings, and simple constants (NAME = literal).
- Exactly two functions: feature_engineering(df, close, open_, high, low) and strategy_config(). No other
  module-level function; never define build_model, generate_signals, apply_risk, train_and_backtest or risk_filter
  (the engine owns them). Small helper functions and lambdas nested INSIDE the two functions are fine.
- No classes, decorators, async, yield, global statements.
- Imports: only numpy, pandas and sklearn (import numpy as np; import pandas as pd). Banned: xgboost, lightgbm,
  tensorflow, keras, torch, optuna, ta, talib, finta, tulipy, statsmodels, plotly, and every other package
  (os, sys, math, random ... are refused too: use numpy). Also refused: numpy.ctypeslib, numpy.f2py, numpy.testing, numpy.lib.npyio,
  pandas.io, pandas.testing, pandas.util, sklearn.datasets.
- Forbidden: exec, eval, compile, open, __import__, globals, locals, vars, input, getattr/setattr/hasattr/delattr,
  super, type() with three arguments; any __dunder__ name or attribute; attributes starting with _ (private);
  reading or writing files (read_csv, to_csv, to_pickle, np.load, np.save ...); DataFrame.eval / .query;
  passing method names as strings.

feature_engineering(df, close, open_, high, low) -> DataFrame
- df has a UTC DatetimeIndex (one row per bar, oldest first) and the columns open, high, low, close;
  close, open_, high, low are df's price Series.
- Add feature columns to df: every new column is an ML feature, so add only numeric columns (float or int, no strings,
  no booleans left as objects: cast masks with .astype(float)).
- No look-ahead: never shift(-n), diff(-n), pct_change(-n) or np.roll with a negative shift; no centered windows
  (center=True). Each row may use only that bar and earlier bars.
- Do not drop rows, filter dates, sort, or reindex; do not overwrite or modify open, high, low, close.
- No pd.cut / pd.qcut: bin with np.where / np.select.
- Replace infinities from divisions (e.g. .replace([np.inf, -np.inf], np.nan)) before the final fill.
- End with exactly this fill and return df:
      df = df.bfill().ffill()
      return df
- Prefer scale-free features (returns, ratios to price, distances in ATR units, oscillators) over raw price levels:
  the model is trained on one span and scored on later bars.

THE PIPELINE (what the engine does with your code)
load OHLC -> feature_engineering -> drop warm-up rows -> target = sign(close[t + target_horizon] - close[t]) ->
chronological train/test split with a purge gap -> fit model_type(**model_params) -> predict_proba ->
p(up) >= signal_threshold is long (1), p(up) <= 1 - signal_threshold is short (-1), else 0 ->
apply direction, entry_long/entry_short, entry_filter, min_atr, trend_filter -> backtest with stop_loss, take_profit, cooldown,
max_positions, on_opposite, exit_long/exit_short, trailing_stop, session_filter and skip_days (entry at the next bar's
open, whose time the session and day filters judge; SL/TP checked inside each bar) -> metrics.
A 0 signal never closes a position: exits come from an opposite signal (per on_opposite), stop-loss, take-profit,
and the optional exit columns. Optional keys (omit them when unused): "skip_days": ["fri"] (UTC days, of
mon tue wed thu fri sat sun, on which nothing opens; like session_filter, judged on the bar the position opens at);
"entry_filter": a column name, entries only where it is > 0 (use it for "only when ADX > 25"-style filters);
"entry_long" / "entry_short": the column of the request's long / short entry rule (e.g. "rsi_14_lt_30"): a long
opens only where entry_long > 0 at the signal bar's close and the model confirms it; once either is set, a side
without a rule opens nothing. When the request states entry conditions, write them as rules: one 0/1 column per
side combining the conditions as the words say ("and" -> all, "or" -> any; a crossing keeps its direction), e.g.
df["entry_long_rule"] = np.where((df["rsi_14_lt_30"] > 0) & (df["close_gt_sma_200"] > 0), 1.0, 0.0), and name it in
entry_long / entry_short (a side the request does not state gets no rule; "long above X, short below X" states both);
when the request leaves the entries to the model, set neither. Express every indicator the request names exactly
(Williams %R, CCI, Keltner, Ichimoku cloud, Parabolic SAR, VWAP, DMI, pivots R1/S1...), never a different one in its place;
"exit_long" / "exit_short": the name of a column your
feature_engineering adds (e.g. "close_lt_ema_20"): where it is > 0 at a bar's close, open longs / shorts close at
the next open (use these for the request's exit rules, e.g. "exit on a close below the 20 EMA");
"trailing_stop": the position engine's trailing stop, for "trail by 2 ATR" / "trailing stop 1%" / "trail 30 pips":
a decimal ratio of the best price since entry (0 < r <= 0.2, e.g. 0.01), {"pips": 30}, or {"atr": 2, "period": 14}
(k x ATR(period), 0.1 <= k <= 20, period 2-200, default 14); it moves after each bar's close, never loosens, and
stop_loss stays as a floor (set stop_loss None for a trail alone). Do not approximate a trailing stop with exit columns.
trend_filter, when not None, must be the name of a column your feature_engineering adds (e.g. "sma_200"): longs
only above it, shorts only below. min_atr is a minimum NATR (ATR / close * 100). stop_loss / take_profit are
decimal ratios of the entry price (0.002 = 0.2%; on 15min EURUSD 0.001-0.005 is typical), or None.
Pip size is 0.0001 (0.01 for JPY pairs). target_horizon 4 is about one hour on 15min bars.
Keep models modest so training is fast: n_estimators <= 300, max_depth <= 8 is plenty.`;

const EXAMPLE = `EXAMPLE of a valid file (style only; write what the request asks for):
\`\`\`python
# signalforge: symbol=EURUSD timeframe=15min
import numpy as np
import pandas as pd


def feature_engineering(df, close, open_, high, low):
    ret = close.pct_change()
    df["ret_1"] = ret
    df["ret_4"] = close.pct_change(4)
    df["vol_20"] = ret.rolling(20).std()
    df["sma_50"] = close.rolling(50).mean()
    df["dist_sma_50"] = close / df["sma_50"] - 1
    _rsi_d = close.diff()
    _rsi_g = _rsi_d.clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean()
    _rsi_l = (-_rsi_d).clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean()
    df["rsi_14"] = (100 * _rsi_g / (_rsi_g + _rsi_l)).mask(_rsi_g + _rsi_l == 0, 50.0)
    df["range"] = (high - low) / close
    df = df.replace([np.inf, -np.inf], np.nan)
    df = df.bfill().ffill()
    return df


def strategy_config():
    return {
        "model_type": "RandomForestClassifier",
        "model_params": {"n_estimators": 200, "max_depth": 6, "min_samples_leaf": 20},
        "signal_threshold": 0.55,
        "direction": "both",
        "stop_loss": 0.002,
        "take_profit": 0.004,
        "cooldown": 2,
        "max_positions": 1,
        "on_opposite": "reverse",
        "session_filter": [7, 17],
        "min_atr": None,
        "trend_filter": "sma_50",
        "target_horizon": 4,
        "objective": "Catch short momentum bursts in the London and New York sessions",
        "notes": "Returns, volatility, RSI and the distance to the 50-bar mean",
        "title": "Session momentum RF",
    }
\`\`\``;

let cached: string | null = null;

/** The system prompt (built once per process: it depends only on the schemas and the registry). */
export function systemPrompt(): string {
  cached ??= [CONTRACT, configSection(), indicatorSection(), EXAMPLE].join('\n\n');
  return cached;
}
