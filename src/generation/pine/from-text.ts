/**
 * A plain-language description → Pine v5, through the offline generator's own grammar: its
 * indicator mentions become ta.* calls and plots, its conditions become plotshape markers and
 * alertconditions. Keltner and Donchian channels, which the strategy grammar does not know, are
 * read here ("20-period Keltner channel with 2 ATR bands", "Donchian 55").
 */
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import { INDICATORS } from '../../indicators/index.ts';
import { buildIntent, isRegistry, type Condition, type Instance, type Operand } from '../offline/index.ts';

const PRICE_SCALE = new Set(['sma', 'ema', 'wma', 'bb']);

export interface PineFromText {
  pine: string;
  /** What the text was read as, and what was left out. */
  remarks: string[];
  /** false when the text named no indicator the writer knows (the Pine is then a default set, not the user's). */
  recognised: boolean;
}

interface Channel {
  kind: 'keltner' | 'donchian';
  period: number;
  mult: number;
}

/** Keltner / Donchian channels named in the text, with their period and band width. */
function channels(text: string): Channel[] {
  const t = text.toLowerCase();
  const out: Channel[] = [];
  for (const kind of ['keltner', 'donchian'] as const) {
    const at = t.indexOf(kind);
    if (at < 0) continue;
    const around = t.slice(Math.max(0, at - 30), at + 60);
    const period = Number(/(\d+)\s*(?:-|\s)?\s*(?:period|bar|day)?s?\s*(?:keltner|donchian)/.exec(around)?.[1] ?? /(?:keltner|donchian)\D{0,12}(\d+)/.exec(around)?.[1] ?? 20);
    const mult = Number(/(\d+(?:\.\d+)?)\s*(?:x\s*)?atr/.exec(around)?.[1] ?? 2);
    out.push({ kind, period: Math.min(Math.max(period, 2), 500), mult: Math.min(Math.max(mult, 0.1), 10) });
  }
  return out;
}

/** Pine variable names of an instance's outputs: the registry's column names. */
const outputs = (inst: Instance): string[] => (isRegistry(inst.name) ? INDICATORS[inst.name].columns(inst.params) : []);

function declare(inst: Instance, lines: string[], plots: string[]): void {
  const p = inst.params;
  const [a, b, c] = outputs(inst);
  const onPrice = PRICE_SCALE.has(inst.name);
  const plot = (name: string, title: string, color: string) => plots.push(`plot(${name}, "${title}", color=${color}${onPrice ? ', force_overlay=true' : ''})`);
  switch (inst.name) {
    case 'sma':
    case 'ema':
    case 'wma':
      lines.push(`${a} = ta.${inst.name}(close, ${p.period})`);
      plot(a!, `${inst.name.toUpperCase()} ${p.period}`, inst.name === 'sma' ? 'color.blue' : inst.name === 'ema' ? 'color.orange' : 'color.purple');
      return;
    case 'bb':
      lines.push(`[${b}, ${a}, ${c}] = ta.bb(close, ${p.period}, ${p.std})`);
      plot(a!, 'BB upper', 'color.teal');
      plot(b!, 'BB middle', 'color.gray');
      plot(c!, 'BB lower', 'color.teal');
      return;
    case 'rsi':
      lines.push(`${a} = ta.rsi(close, ${p.period})`);
      plot(a!, `RSI ${p.period}`, 'color.purple');
      return;
    case 'macd':
      lines.push(`[${a}, ${b}, ${c}] = ta.macd(close, ${p.fast}, ${p.slow}, ${p.signal})`);
      plot(a!, 'MACD', 'color.blue');
      plot(b!, 'Signal', 'color.orange');
      plots.push(`plot(${c}, "Histogram", color=color.gray, style=plot.style_histogram)`);
      return;
    case 'stoch':
      lines.push(`${a} = ta.stoch(close, high, low, ${p.k_period})`, `${b} = ta.sma(${a}, ${p.d_period})`);
      plot(a!, '%K', 'color.blue');
      plot(b!, '%D', 'color.orange');
      return;
    case 'atr':
      lines.push(`${a} = ta.atr(${p.period})`);
      plot(a!, `ATR ${p.period}`, 'color.red');
      return;
  }
}

function operand(o: Operand, instances: readonly Instance[], of = 'close'): string {
  if (o.kind === 'price') return 'close';
  if (o.kind === 'value') return String(o.value);
  if (o.kind === 'avg') return `ta.sma(${of}, ${o.window})`;
  return outputs(instances[o.instance]!)[o.output]!;
}

function conditionExpr(c: Condition, instances: readonly Instance[]): string {
  switch (c.kind) {
    case 'compare': {
      const l = operand(c.left, instances);
      const r = operand(c.right, instances, l);
      if (c.relation === 'rising' || c.relation === 'falling') return `${l} ${c.relation === 'rising' ? '>' : '<'} ${l}[1]`;
      return { above: `${l} > ${r}`, below: `${l} < ${r}`, cross_up: `ta.crossover(${l}, ${r})`, cross_down: `ta.crossunder(${l}, ${r})`, cross: `ta.cross(${l}, ${r})` }[c.relation];
    }
    case 'band': {
      const [up, , lo] = outputs(instances[c.instance]!);
      return { outside: `close > ${up} or close < ${lo}`, above_upper: `close > ${up}`, below_lower: `close < ${lo}`, inside: `close <= ${up} and close >= ${lo}` }[c.where];
    }
    case 'breakout':
      return `close > ta.highest(high, ${c.window})[1] or close < ta.lowest(low, ${c.window})[1]`;
    case 'momentum':
      return `ta.mom(close, ${c.window}) > 0`;
    case 'offset':
    case 'near':
      return 'false'; // not kept: only the registry's conditions are drawn (see `drawable`)
  }
}

const quote = (s: string) => s.replace(/["\\]/g, '').replace(/\s+/g, ' ').trim().slice(0, 60);

/** Writes the Pine; the intent's remarks say how the text was read. */
export function pineFromText(text: string, symbol: Symbol, timeframe: Timeframe): PineFromText {
  const chans = channels(text);
  const intent = buildIntent({ description: text, symbol, timeframe });
  const remarks = [...intent.remarks];
  // The strategy writer's own indicators (ADX, Ichimoku…) have no Pine here; channels have theirs below.
  const skipped = [...new Set(intent.instances.filter((i) => !isRegistry(i.name) && i.name !== 'keltner' && i.name !== 'donchian').map((i) => i.name))];
  if (skipped.length) remarks.push(`left out: ${skipped.join(', ')} (the Pine writer draws SMA, EMA, WMA, Bollinger, RSI, MACD, Stochastic, ATR, Keltner and Donchian)`);
  // A channel's own words ("bands", "2 ATR") read as Bollinger and ATR by the strategy grammar
  // belong to the channel; the offline default set (nothing else recognised) is dropped too.
  const defaulted = intent.remarks.some((r) => r.startsWith('no built-in indicator recognised'));
  const instances = intent.instances;
  const kept = (i: number) => i >= 0 && isRegistry(instances[i]!.name) && (chans.length === 0 || (!defaulted && instances[i]!.name !== 'bb' && instances[i]!.name !== 'atr'));
  const conditions = intent.conditions.filter((c) => c.role === 'entry' && usedInstances(c.condition).every(kept));
  const lines: string[] = [];
  const plots: string[] = [];
  const signals: string[] = [];
  instances.forEach((inst, i) => kept(i) && declare(inst, lines, plots));
  const outside = /\b(outside|beyond|break(?:s|ing)? (?:out|through)|closes? (?:above|below))\b/i.test(text);
  for (const ch of chans) {
    const p = ch.period;
    if (ch.kind === 'keltner') {
      lines.push(`kc_mid_${p} = ta.ema(close, ${p})`, `kc_upper_${p} = kc_mid_${p} + ${ch.mult} * ta.atr(${p})`, `kc_lower_${p} = kc_mid_${p} - ${ch.mult} * ta.atr(${p})`);
      plots.push(`plot(kc_upper_${p}, "Keltner upper", color=color.teal, force_overlay=true)`, `plot(kc_mid_${p}, "Keltner middle", color=color.gray, force_overlay=true)`, `plot(kc_lower_${p}, "Keltner lower", color=color.teal, force_overlay=true)`);
      if (outside) signals.push(...marker(`close > kc_upper_${p}`, 'Close above Keltner', 'long'), ...marker(`close < kc_lower_${p}`, 'Close below Keltner', 'short'));
    } else {
      lines.push(`dc_upper_${p} = ta.highest(high, ${p})`, `dc_lower_${p} = ta.lowest(low, ${p})`, `dc_mid_${p} = (dc_upper_${p} + dc_lower_${p}) / 2`);
      plots.push(`plot(dc_upper_${p}, "Donchian upper", color=color.teal, force_overlay=true)`, `plot(dc_mid_${p}, "Donchian middle", color=color.gray, force_overlay=true)`, `plot(dc_lower_${p}, "Donchian lower", color=color.teal, force_overlay=true)`);
      if (outside) signals.push(...marker(`close > dc_upper_${p}[1]`, 'Donchian breakout up', 'long'), ...marker(`close < dc_lower_${p}[1]`, 'Donchian breakout down', 'short'));
    }
  }
  for (const spec of conditions) {
    const title = quote(conditionTitle(spec.condition, instances));
    signals.push(...marker(conditionExpr(spec.condition, instances), title, spec.side));
  }
  const oscillators = instances.some((inst, i) => kept(i) && !PRICE_SCALE.has(inst.name));
  const levels: string[] = [];
  if (instances.some((inst, i) => kept(i) && inst.name === 'rsi')) levels.push('hline(70, "Overbought", color=color.red)', 'hline(30, "Oversold", color=color.green)');
  if (instances.some((inst, i) => kept(i) && inst.name === 'stoch')) levels.push('hline(80, "Upper", color=color.red)', 'hline(20, "Lower", color=color.green)');
  if (instances.some((inst, i) => kept(i) && inst.name === 'macd')) levels.push('hline(0, "Zero", color=color.gray)');
  const title = quote(text.split(/[.\n]/)[0]!.trim()) || 'Custom indicator';
  const pine = [
    '//@version=5',
    `// Written from: ${quote(text)}`,
    `indicator("${title}", overlay=${oscillators ? 'false' : 'true'})`,
    ...lines,
    ...plots,
    ...levels,
    ...signals,
    '',
  ].join('\n');
  return { pine, remarks, recognised: !defaulted || chans.length > 0 };
}

function marker(expr: string, title: string, side: 'long' | 'short' | null): string[] {
  const [shape, location, color] = side === 'long' ? ['shape.triangleup', 'location.belowbar', 'color.green'] : side === 'short' ? ['shape.triangledown', 'location.abovebar', 'color.red'] : ['shape.circle', 'location.abovebar', 'color.gray'];
  const name = `sig_${title.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
  return [`${name} = ${expr}`, `plotshape(${name}, "${title}", style=${shape}, location=${location}, color=${color}, force_overlay=true)`, `alertcondition(${name}, "${title}", "${title}")`];
}

function conditionTitle(c: Condition, instances: readonly Instance[]): string {
  switch (c.kind) {
    case 'compare':
      return `${operand(c.left, instances)} ${c.relation.replace('_', ' ')} ${operand(c.right, instances)}`;
    case 'band':
      return `close ${c.where.replace('_', ' ')} ${instances[c.instance]!.name.toUpperCase()}`;
    case 'breakout':
      return `${c.window}-bar breakout`;
    case 'momentum':
      return `${c.window}-bar momentum up`;
    case 'offset':
    case 'near':
      return `${c.kind} level`;
  }
}

function usedInstances(c: Condition): number[] {
  if (c.kind === 'band') return [c.instance];
  if (c.kind === 'offset' || c.kind === 'near') return [-1]; // never kept: distances are the strategy's, not a Pine marker's
  if (c.kind !== 'compare') return [];
  return [c.left, c.right].flatMap((o) => (o.kind === 'column' ? [o.instance] : []));
}
