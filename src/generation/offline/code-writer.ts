/**
 * Writes the strategy code for an intent: the `# signalforge:` header line, a comment block
 * saying what was understood from the request (and which conflicts were resolved how), then the
 * contract's two functions. Request text appears only inside comments, made one-line and
 * printable; every Python string literal is built from the intent and escaped to ASCII.
 */
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { labelMode } from '../../../schemas/strategy.ts';
import { codeHeader } from '../../sandbox/index.ts';
import { describeCondition, instanceLabel } from './features.ts';
import type { FeaturePlan } from './features.ts';
import { TEXT_FIELDS, type RiskLevel, type Setting, type StrategyIntent } from './intent.ts';
import { marketFacts, sig } from './market.ts';
import { sessionHoursLabel } from './parse-sessions.ts';
import { commentSafe } from './text.ts';
import { STYLE_LABEL } from './describe.ts';

const CONFIG_KEYS = [
  'model_type',
  'model_params',
  'signal_threshold',
  'direction',
  'stop_loss',
  'take_profit',
  'cooldown',
  'max_positions',
  'on_opposite',
  'session_filter',
  'min_atr',
  'trend_filter',
  'target_horizon',
  'objective',
  'notes',
  'title',
] as const;
/** Optional keys, written only when set (code without them stays as it was). */
const OPTIONAL_KEYS = [
  'skip_days',
  'entry_long',
  'entry_short',
  'entry_filter',
  'exit_long',
  'exit_short',
  'trailing_stop',
  'indicators',
] as const;

/** A value as a Python literal: ASCII-only strings, True/False/None, dicts and lists. */
export function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  if (typeof v === 'string')
    return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyLiteral(k)}: ${pyLiteral(x)}`)
      .join(', ')}}`;
  throw new Error(`cannot write ${typeof v} as Python`);
}

/** Splits text into comment lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

const via = (s: Setting<unknown>) =>
  s.from === 'default' ? '(default)' : s.phrase ? `(${s.from}: "${commentSafe(s.phrase, 80)}")` : `(${s.from})`;

function level(r: RiskLevel | null, symbol: StrategyIntent['symbol'], timeframe: StrategyIntent['timeframe']): string {
  if (!r) return 'none';
  const m = marketFacts(symbol, timeframe);
  const asked =
    r.unit === 'pips'
      ? `${r.amount} pips`
      : r.unit === 'pct'
        ? `${r.amount}%`
        : r.unit === 'usd'
          ? `$${r.amount} at 1 lot`
          : r.unit === 'atr'
            ? `${r.amount} x typical ATR(14)`
            : r.unit === 'rr'
              ? `${r.amount} x the stop`
              : 'default';
  return `${asked} = ${r.ratio} of price (~${r.pips} pips at ${symbol} ~${m.price}, pip ${m.pip})`;
}

function understood(intent: StrategyIntent): string[] {
  const rows: Array<[string, string]> = [];
  const inst = intent.instances;
  rows.push(['style', STYLE_LABEL[intent.style]]);
  rows.push(['indicators', inst.length ? inst.map(instanceLabel).join(', ') : 'none (price action only)']);
  for (const c of intent.conditions) {
    const what =
      c.role === 'entry' ? 'entry' : c.role === 'exit' ? `exit${c.side ? ` ${c.side}s` : ''}` : c.negate ? 'filter (not)' : 'filter';
    rows.push([what, `${describeCondition(c.condition, inst)}${c.side && c.role === 'entry' ? ` (${c.side} side)` : ''} [${c.from}]`]);
  }
  rows.push(['direction', `${intent.direction.value} ${via(intent.direction)}`]);
  rows.push(['session', `${sessionHoursLabel(intent.session.value)} ${via(intent.session)}`]);
  if (intent.skipDays.value.length) rows.push(['skip days', `${intent.skipDays.value.join(', ')} (UTC) ${via(intent.skipDays)}`]);
  if (intent.entryLong)
    rows.push(['long rule', `${intent.entryLong}: longs open only where ${intent.entryRuleWords.long} (and the model confirms)`]);
  if (intent.entryShort)
    rows.push(['short rule', `${intent.entryShort}: shorts open only where ${intent.entryRuleWords.short} (and the model confirms)`]);
  if ((intent.entryLong || intent.entryShort) && !(intent.entryLong && intent.entryShort))
    rows.push(['', `no ${intent.entryLong ? 'short' : 'long'} rule: no ${intent.entryLong ? 'short' : 'long'}s open`]);
  if (intent.entryGate) rows.push(['entry filter', `${intent.entryGate}: entries only where every filter holds`]);
  if (intent.exitLong) rows.push(['exit longs', `${intent.exitLong} > 0 closes longs at the next open`]);
  if (intent.exitShort) rows.push(['exit shorts', `${intent.exitShort} > 0 closes shorts at the next open`]);
  rows.push(['stop loss', `${level(intent.stopLoss.value, intent.symbol, intent.timeframe)} ${via(intent.stopLoss)}`]);
  rows.push(['take profit', `${level(intent.takeProfit.value, intent.symbol, intent.timeframe)} ${via(intent.takeProfit)}`]);
  if (intent.trailingStop.value)
    rows.push([
      'trailing stop',
      `${intent.trailingStop.value.label} behind the best price since entry; moves after each bar, never back ${via(intent.trailingStop)}`,
    ]);
  rows.push(['cooldown', `${intent.cooldown.value} bars ${via(intent.cooldown)}`]);
  rows.push(['max positions', `${intent.maxPositions.value} ${via(intent.maxPositions)}`]);
  rows.push(['on opposite', `${intent.onOpposite.value} ${via(intent.onOpposite)}`]);
  rows.push(['trend filter', `${intent.trendFilter.value ?? 'none'} ${via(intent.trendFilter)}`]);
  rows.push(['min ATR', `${intent.minAtr.value === null ? 'none' : `NATR(14) >= ${intent.minAtr.value}%`} ${via(intent.minAtr)}`]);
  rows.push(['model', `${intent.model.value.type} ${pyLiteral(intent.model.value.params)} ${via(intent.model)}`]);
  const meta = labelMode(intent.config) === 'meta';
  // Meta-labelling: the model scores the rule's trades (P(win)), and the horizon is their time limit.
  rows.push([
    'horizon',
    `${intent.targetHorizon.value} bars of ${intent.timeframe}${meta ? ": a rule trade's time limit when its win or loss is labelled" : ''} ${via(intent.targetHorizon)}`,
  ]);
  rows.push(['objective', intent.config.objective]);
  rows.push([
    'threshold',
    meta
      ? `P(win) >= ${intent.threshold.value} confirms a rule's trade (P(win): the model's probability that the trade reaches its take profit before its stop, or gains at its time limit) ${via(intent.threshold)}`
      : `p(up) >= ${intent.threshold.value} for a long, <= ${sig(1 - intent.threshold.value, 3)} for a short ${via(intent.threshold)}`,
  ]);
  return rows.flatMap(([k, v]) => wrap(commentSafe(v, 600), 82).map((line, i) => `#   ${(i === 0 ? k : '').padEnd(14)}${line}`));
}

function requestLines(request: GenerateRequest): string[] {
  const lines: string[] = [];
  for (const f of TEXT_FIELDS) {
    const text = request[f]?.trim();
    if (text) wrap(`${f}: "${commentSafe(text, 600)}"`, 92).forEach((l, i) => lines.push(`#   ${i ? '  ' : ''}${l}`));
  }
  if (request.indicators && Object.keys(request.indicators).length)
    lines.push(
      ...wrap(`indicators: ${commentSafe(JSON.stringify(request.indicators, Object.keys(request.indicators).sort()), 600)}`, 92).map(
        (l) => `#   ${l}`,
      ),
    );
  if (request.pos_rules && Object.keys(request.pos_rules).length)
    lines.push(`#   pos_rules: ${commentSafe(JSON.stringify(request.pos_rules, Object.keys(request.pos_rules).sort()), 300)}`);
  return lines.length ? lines : ['#   (empty: the default strategy)'];
}

const indent = (lines: readonly string[]) => lines.map((l) => (l ? `    ${l}` : ''));

/** The full strategy code for the intent. */
export function writeCode(request: GenerateRequest, intent: StrategyIntent, plan: FeaturePlan): string {
  const header = [
    codeHeader(intent.symbol, intent.timeframe),
    `# ${intent.title}`,
    '#',
    '# Written by the signalforge offline generator. Edit freely, keeping the contract: exactly the two',
    '# functions below, numpy/pandas/sklearn only, no negative shifts, no pd.cut/pd.qcut.',
    '#',
    '# Request:',
    ...requestLines(request),
    '#',
    '# Understood:',
    ...understood(intent),
  ];
  if (intent.approximations.length) {
    header.push('#', '# Approximated (what the strategy model expresses only approximately):');
    for (const a of intent.approximations)
      wrap(commentSafe(`"${a.asked}" -> ${a.done} (${a.why})`, 400), 90).forEach((l, i) => header.push(`#   ${i ? '  ' : '- '}${l}`));
  }
  if (intent.remarks.length) {
    header.push('#', '# Notes (how conflicts and unsupported requests were resolved):');
    for (const r of intent.remarks) wrap(r, 90).forEach((l, i) => header.push(`#   ${i ? '  ' : '- '}${l}`));
  }
  header.push(
    '#',
    '# Units: stop_loss/take_profit are decimal ratios of the entry price; pips and dollars were converted',
    "# at the symbol's typical price (dollars at 1 standard lot). A train request's stop_loss/take_profit",
    '# (risk_unit pips, usd or pct) overrides them exactly, per trade.',
  );
  if (intent.trailingStop.value) {
    header.push(
      '# trailing_stop is a ratio of the best price since entry, {"pips": n} or {"atr": k, "period": n}:',
      '# the position engine trails it exactly (after each bar, never back).',
    );
  }
  const body: string[] = ['"""Features: built-in indicators (the same pandas code as POST /indicators), condition flags, price action."""'];
  if (plan.indicatorCode) body.push('# Built-in indicators', ...plan.indicatorCode.split('\n'));
  for (const block of plan.blocks) {
    if (!block.lines.length) continue;
    body.push('', `# ${block.comment}`, ...block.lines);
  }
  body.push(
    '',
    "# The contract's fill: warm-up rows take the first valid value, then forward-fill",
    'df = df.bfill().ffill()',
    'return df',
  );
  const config = intent.config as Record<string, unknown>;
  const configLines = [...CONFIG_KEYS, ...OPTIONAL_KEYS.filter((k) => config[k] !== undefined)].map(
    (k) => `"${k}": ${pyLiteral(config[k])},`,
  );
  return [
    ...header,
    'import numpy as np',
    'import pandas as pd',
    '',
    '',
    'def feature_engineering(df, close, open_, high, low):',
    ...indent(body),
    '',
    '',
    'def strategy_config():',
    '    """Model, probability threshold and the position rules the backtest and the live actor apply."""',
    '    return {',
    ...configLines.map((l) => `        ${l}`),
    '    }',
    '',
  ].join('\n');
}
