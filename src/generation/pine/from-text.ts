/**
 * A plain-language description → Pine v5, through the offline generator's own grammar: its
 * indicator mentions become Pine (indicator-pine.ts) and plots, its conditions become plotshape
 * markers and alertconditions. Keltner and Donchian channels and the Hull moving average, whose
 * words the strategy grammar reads otherwise ("2 ATR bands" as Bollinger and ATR, "Hull MA 55"
 * as an SMA), are read here ("20-period Keltner channel with 2 ATR bands", "Donchian 55").
 */
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import { MIRROR_REMARK, buildIntent, instanceLabel, type Condition, type Instance, type Operand } from '../offline/index.ts';
import { declarePine, onPricePane, pineColumns, writesPine, type PineParts } from './indicator-pine.ts';

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
    const period = Number(
      /(\d+)\s*(?:-|\s)?\s*(?:period|bar|day)?s?\s*(?:keltner|donchian)/.exec(around)?.[1] ??
        /(?:keltner|donchian)\D{0,12}(\d+)/.exec(around)?.[1] ??
        20,
    );
    const mult = Number(/(\d+(?:\.\d+)?)\s*(?:x\s*)?atr/.exec(around)?.[1] ?? 2);
    out.push({ kind, period: Math.min(Math.max(period, 2), 500), mult: Math.min(Math.max(mult, 0.1), 10) });
  }
  return out;
}

/** "Hull MA 55", "55-period hull moving average": the periods of the Hull moving averages named. */
function hullPeriods(text: string): number[] {
  const t = text.toLowerCase();
  const out: number[] = [];
  for (const m of t.matchAll(/\bhull\b/g)) {
    const around = t.slice(Math.max(0, m.index - 20), m.index + 40);
    const period = Number(/hull\D{0,25}?(\d+)/.exec(around)?.[1] ?? /(\d+)\D{0,15}hull/.exec(around)?.[1] ?? 55);
    out.push(Math.min(Math.max(period, 2), 500));
  }
  return [...new Set(out)];
}

function operand(o: Operand, instances: readonly Instance[], of = 'close'): string {
  if (o.kind === 'price') return 'close';
  if (o.kind === 'value') return String(o.value);
  if (o.kind === 'avg') return `ta.sma(${of}, ${o.window})`;
  return pineColumns(instances[o.instance]!)[o.output]!;
}

function conditionExpr(c: Condition, instances: readonly Instance[]): string {
  switch (c.kind) {
    case 'compare': {
      const l = operand(c.left, instances);
      const r = operand(c.right, instances, l);
      if (c.relation === 'rising' || c.relation === 'falling') return `${l} ${c.relation === 'rising' ? '>' : '<'} ${l}[1]`;
      return {
        above: `${l} > ${r}`,
        below: `${l} < ${r}`,
        cross_up: `ta.crossover(${l}, ${r})`,
        cross_down: `ta.crossunder(${l}, ${r})`,
        cross: `ta.cross(${l}, ${r})`,
        touch: `high >= ${r} and low <= ${r}`,
      }[c.relation];
    }
    case 'band': {
      const [up, , lo] = pineColumns(instances[c.instance]!);
      return {
        outside: `close > ${up} or close < ${lo}`,
        above_upper: `close > ${up}`,
        below_lower: `close < ${lo}`,
        inside: `close <= ${up} and close >= ${lo}`,
      }[c.where];
    }
    case 'breakout':
      return `close > ta.highest(high, ${c.window})[1] or close < ta.lowest(low, ${c.window})[1]`;
    case 'momentum':
      return `ta.mom(close, ${c.window}) > 0`;
    case 'pattern':
      return `${pineColumns(instances[c.instance]!)[c.output]} != 0`;
    case 'channel': {
      const [up, , lo] = pineColumns(instances[c.instance]!);
      return `close > ${up} or close < ${lo}`;
    }
    case 'offset':
    case 'near':
      return 'false'; // not kept: only the registry's conditions are drawn (see `drawable`)
  }
}

const quote = (s: string) => s.replace(/["\\]/g, '').replace(/\s+/g, ' ').trim().slice(0, 60);

/** Writes the Pine; the intent's remarks say how the text was read. */
export function pineFromText(text: string, symbol: Symbol, timeframe: Timeframe): PineFromText {
  const chans = channels(text);
  const hulls = hullPeriods(text);
  const intent = buildIntent({ description: text, symbol, timeframe });
  // The offline default set (nothing else recognised) is not the user's: dropped, unless a channel or Hull MA was named.
  const defaulted = intent.remarks.some((r) => r.startsWith('no built-in indicator recognised'));
  const instances = intent.instances;
  // A channel's own words ("bands", "2 ATR") read as Bollinger and ATR by the strategy grammar
  // belong to the channel; "Hull moving average 55" read as a 55-bar average is the Hull MA.
  const own = (inst: Instance) =>
    (chans.length > 0 && (inst.name === 'bb' || inst.name === 'atr')) ||
    (['sma', 'ema', 'wma'].includes(inst.name) && hulls.includes(inst.params.period!));
  const kept = (i: number) =>
    i >= 0 && writesPine(instances[i]!) && !(defaulted && (chans.length > 0 || hulls.length > 0)) && !own(instances[i]!);
  // A channel drawn from its own words (below) is not the strategy's: the strategy's remarks on it do not apply.
  const drawnChannel = (inst: Instance, r: string) =>
    chans.some((c) => c.kind === inst.name) && r.startsWith(`${inst.name[0]!.toUpperCase()}${inst.name.slice(1)}(`);
  // Remarks on an indicator start with its label ("Bollinger(20, 2) named without a rule"); those on
  // the strategy's sides (a mirrored short) do not apply to a drawing, which marks what the text said.
  const labelled = (inst: Instance, r: string) => r.startsWith(`${instanceLabel(inst).split('(')[0]}(`);
  const remarks = intent.remarks.filter(
    (r) => !r.startsWith(MIRROR_REMARK) && !instances.some((inst) => (own(inst) && labelled(inst, r)) || drawnChannel(inst, r)),
  );
  const conditions = intent.conditions.filter((c) => c.role === 'entry' && usedInstances(c.condition).every(kept));
  const parts: PineParts = { lines: [], plots: [], levels: [], marks: [] };
  const declared = new Set<string>();
  instances.forEach((inst, i) => {
    const key = `${inst.name}${JSON.stringify(inst.params)}`;
    if (kept(i) && !declared.has(key)) declarePine(inst, parts);
    declared.add(key);
  });
  const { lines, plots, levels } = parts;
  const signals = parts.marks.flatMap((m) => marker(m.expr, m.title, m.side));
  const outside = /\b(outside|beyond|break(?:s|ing)? (?:out|through)|closes? (?:above|below))\b/i.test(text);
  for (const ch of chans) {
    const p = ch.period;
    if (ch.kind === 'keltner') {
      lines.push(
        `kc_mid_${p} = ta.ema(close, ${p})`,
        `kc_upper_${p} = kc_mid_${p} + ${ch.mult} * ta.atr(${p})`,
        `kc_lower_${p} = kc_mid_${p} - ${ch.mult} * ta.atr(${p})`,
      );
      plots.push(
        `plot(kc_upper_${p}, "Keltner upper", color=color.teal, force_overlay=true)`,
        `plot(kc_mid_${p}, "Keltner middle", color=color.gray, force_overlay=true)`,
        `plot(kc_lower_${p}, "Keltner lower", color=color.teal, force_overlay=true)`,
      );
      if (outside)
        signals.push(
          ...marker(`close > kc_upper_${p}`, 'Close above Keltner', 'long'),
          ...marker(`close < kc_lower_${p}`, 'Close below Keltner', 'short'),
        );
    } else {
      lines.push(
        `dc_upper_${p} = ta.highest(high, ${p})`,
        `dc_lower_${p} = ta.lowest(low, ${p})`,
        `dc_mid_${p} = (dc_upper_${p} + dc_lower_${p}) / 2`,
      );
      plots.push(
        `plot(dc_upper_${p}, "Donchian upper", color=color.teal, force_overlay=true)`,
        `plot(dc_mid_${p}, "Donchian middle", color=color.gray, force_overlay=true)`,
        `plot(dc_lower_${p}, "Donchian lower", color=color.teal, force_overlay=true)`,
      );
      if (outside)
        signals.push(
          ...marker(`close > dc_upper_${p}[1]`, 'Donchian breakout up', 'long'),
          ...marker(`close < dc_lower_${p}[1]`, 'Donchian breakout down', 'short'),
        );
    }
  }
  for (const p of hulls) {
    lines.push(`hma_${p} = ta.wma(2 * ta.wma(close, ${Math.floor(p / 2)}) - ta.wma(close, ${p}), ${Math.floor(Math.sqrt(p))})`);
    plots.push(`plot(hma_${p}, "HMA ${p}", color=color.orange, force_overlay=true)`);
  }
  for (const { condition, side } of conditions) {
    signals.push(...marker(conditionExpr(condition, instances), quote(conditionTitle(condition, instances)), side));
    // A momentum rule draws the momentum it reads.
    const w = condition.kind === 'momentum' ? condition.window : 0;
    if (w && !lines.some((l) => l.startsWith(`mom_${w} =`))) {
      lines.push(`mom_${w} = ta.mom(close, ${w})`);
      plots.push(`plot(mom_${w}, "Momentum ${w}", color=color.blue)`);
      levels.push('hline(0, "Zero", color=color.gray)');
    }
  }
  const oscillators = instances.some((inst, i) => kept(i) && !onPricePane(inst)) || lines.some((l) => l.startsWith('mom_'));
  const title = quote(text.split(/[.\n]/)[0]!.trim()) || 'Custom indicator';
  const pine = [
    '//@version=5',
    `// Written from: ${quote(text)}`,
    `indicator("${title}", overlay=${oscillators ? 'false' : 'true'})`,
    ...lines,
    ...plots,
    ...new Set(levels),
    ...signals,
    '',
  ].join('\n');
  return { pine, remarks, recognised: !defaulted || chans.length > 0 || hulls.length > 0 };
}

function marker(expr: string, title: string, side: 'long' | 'short' | null): string[] {
  const [shape, location, color] =
    side === 'long'
      ? ['shape.triangleup', 'location.belowbar', 'color.green']
      : side === 'short'
        ? ['shape.triangledown', 'location.abovebar', 'color.red']
        : ['shape.circle', 'location.abovebar', 'color.gray'];
  const name = `sig_${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')}`;
  return [
    `${name} = ${expr}`,
    `plotshape(${name}, "${title}", style=${shape}, location=${location}, color=${color}, force_overlay=true)`,
    `alertcondition(${name}, "${title}", "${title}")`,
  ];
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
    case 'pattern':
    case 'channel':
      return `${instances[c.instance]!.name} ${c.kind}`;
    case 'offset':
    case 'near':
      return `${c.kind} level`;
  }
}

function usedInstances(c: Condition): number[] {
  if (c.kind === 'band' || c.kind === 'pattern' || c.kind === 'channel') return [c.instance];
  if (c.kind === 'offset' || c.kind === 'near') return [-1]; // never kept: distances are the strategy's, not a Pine marker's
  if (c.kind !== 'compare') return [];
  return [c.left, c.right].flatMap((o) => (o.kind === 'column' ? [o.instance] : []));
}
