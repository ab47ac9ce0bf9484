/**
 * Scores the offline generator's reading of the intent corpus: each expectation of a case is one
 * check (symbol, timeframe, direction, every column, session, days, roles, model…); a case's
 * score is the share of its checks that hold, a category's the mean of its cases'.
 */
import { withMarket } from '../../../src/generation/market-mention.ts';
import { generateOffline, understoodFrom } from '../../../src/generation/offline/index.ts';
import type { Category, IntentCase } from './intent-corpus.ts';

export interface CaseResult {
  id: string;
  category: Category;
  checks: number;
  failed: string[];
}

/** Generates the case's code from its prompt alone (as POST /generate would) and checks it. */
export function scoreCase(c: IntentCase): CaseResult {
  const request = withMarket({ description: c.prompt });
  const { code, intent } = generateOffline(request);
  const understood = understoodFrom(intent);
  const cfg = intent.config;
  const e = c.expect;
  const checks: Array<[string, boolean]> = [];
  const check = (name: string, ok: boolean) => checks.push([name, ok]);
  if (e.symbol) check(`symbol ${e.symbol} (got ${request.symbol})`, request.symbol === e.symbol && code.includes(`symbol=${e.symbol}`));
  if (e.timeframe) check(`timeframe ${e.timeframe} (got ${request.timeframe})`, request.timeframe === e.timeframe);
  if (e.direction)
    check(`direction ${e.direction} (got ${cfg.direction})`, cfg.direction === e.direction && understood.direction.value === e.direction);
  // A tunable indicator's columns are f-strings named from the values read (`df[f'rsi_{_p_rsi_period}']`): read with the config's values.
  const written = code.replace(
    /df\[f'([^']*)'\]/g,
    (_, name: string) => `df['${name.replace(/\{_p_(\w+)\}/g, (_m, key: string) => String(cfg.indicators?.[key]))}']`,
  );
  for (const col of e.columns ?? []) check(`column ${col}`, intent.features.includes(col) && written.includes(`df['${col}'] = `));
  for (const col of e.absent ?? []) check(`no column ${col}`, !intent.features.includes(col));
  if (e.session !== undefined)
    check(
      `session ${JSON.stringify(e.session)} (got ${JSON.stringify(cfg.session_filter)})`,
      JSON.stringify(cfg.session_filter) === JSON.stringify(e.session),
    );
  if (e.skipDays)
    check(`skip_days ${e.skipDays} (got ${cfg.skip_days})`, JSON.stringify(cfg.skip_days ?? []) === JSON.stringify(e.skipDays));
  if (e.entryFilter !== undefined)
    check(
      `entry_filter ${e.entryFilter}`,
      (cfg.entry_filter != null) === e.entryFilter && (understood.filters.length > 0 || !e.entryFilter),
    );
  if (e.exitLong !== undefined)
    check(
      `exit_long ${e.exitLong}`,
      (cfg.exit_long != null) === e.exitLong && (!e.exitLong || cfg.exit_long === null || intent.features.includes(cfg.exit_long!)),
    );
  if (e.exitShort !== undefined)
    check(
      `exit_short ${e.exitShort}`,
      (cfg.exit_short != null) === e.exitShort && (!e.exitShort || intent.features.includes(cfg.exit_short!)),
    );
  for (const [key, want] of [
    ['entry_long', e.entryLong],
    ['entry_short', e.entryShort],
  ] as const) {
    if (want === undefined) continue;
    const column = cfg[key];
    check(
      `${key} ${want} (got ${column})`,
      (column != null) === want && (!want || (intent.features.includes(column!) && written.includes(`df['${column}'] = `))),
    );
  }
  if (e.model) check(`model ${e.model} (got ${cfg.model_type})`, cfg.model_type === e.model);
  if (e.maxPositions !== undefined)
    check(`max_positions ${e.maxPositions} (got ${cfg.max_positions})`, cfg.max_positions === e.maxPositions);
  if (e.takeProfit === null) check(`no fixed take (got ${cfg.take_profit})`, cfg.take_profit === null);
  if (e.trailingStop !== undefined)
    check(
      `trailing_stop ${JSON.stringify(e.trailingStop)} (got ${JSON.stringify(cfg.trailing_stop ?? null)})`,
      JSON.stringify(cfg.trailing_stop ?? null) === JSON.stringify(e.trailingStop) &&
        code.includes(`"trailing_stop": `) === (e.trailingStop !== null),
    );
  for (const words of e.stops ?? [])
    check(
      `stops name "${words}" (got ${JSON.stringify(understood.stops)})`,
      understood.stops.some((s) => s.includes(words)),
    );
  for (const words of e.remarks ?? [])
    check(
      `a remark says "${words}" (got ${JSON.stringify(understood.remarks)})`,
      understood.remarks.some((r) => r.toLowerCase().includes(words.toLowerCase())),
    );
  for (const words of e.approximated ?? [])
    check(
      `approximation of "${words}"`,
      understood.approximations.some((a) => a.asked.includes(words)),
    );
  if (e.mentions?.length) {
    const acted = squash(actedOn(understood).join('\n'));
    for (const words of e.mentions)
      check(`"${words}" is a rule, exit, filter, stop or target, or said not to be`, acted.includes(squash(words)));
  }
  return { id: c.id, category: c.category, checks: checks.length, failed: checks.filter(([, ok]) => !ok).map(([n]) => n) };
}

/** What the reading acts on or owns up to: the entry rules, exits, filters, stops, targets, approximations and remarks. */
function actedOn(u: ReturnType<typeof understoodFrom>): string[] {
  return [
    u.entry_rules?.long ?? '',
    u.entry_rules?.short ?? '',
    ...u.exits.map((x) => x.condition),
    ...u.filters.map((f) => f.filter),
    ...u.stops,
    ...u.targets,
    ...u.approximations.flatMap((a) => [a.asked, a.done]),
    ...u.remarks,
  ];
}

const squash = (s: string) => s.toLowerCase().replace(/[\s_()[\],]+/g, '');

/** Per category: cases, checks, the mean case score. */
export function scoreByCategory(results: readonly CaseResult[]): Record<string, { cases: number; checks: number; score: number }> {
  const out: Record<string, { cases: number; checks: number; score: number }> = {};
  for (const r of results) {
    const s = (out[r.category] ??= { cases: 0, checks: 0, score: 0 });
    s.cases++;
    s.checks += r.checks;
    s.score += r.checks ? (r.checks - r.failed.length) / r.checks : 1;
  }
  for (const s of Object.values(out)) s.score = Math.round((s.score / s.cases) * 10_000) / 10_000;
  return out;
}
