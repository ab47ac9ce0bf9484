/**
 * The optimisation's objective, read from the contract's `optimization` text: one metric to
 * maximise or minimise, and constraints on others ("maximise profit factor with drawdown under
 * 10 %", "highest return, at least 50 trades, win rate above 55%", or just "pf"). The reading is
 * echoed back in words, so a trader sees what the optimiser will do before paying for it; text it
 * cannot read is a 422 that lists the metrics it knows. No guessing: a clause that names no
 * metric, a word it does not know, or two metrics to optimise is refused rather than dropped.
 */
import type { TradeStats } from '../../schemas/backtest.ts';
import type { Objective, ObjectiveConstraint } from '../../schemas/optimize-space.ts';
import { UnprocessableError } from '../errors.ts';

export type { Objective, ObjectiveConstraint } from '../../schemas/optimize-space.ts';

/** What a trial's metrics are: TradeStats and the Sharpe ratio. */
export type MetricValues = TradeStats & { sharpe: number };
export type MetricName = keyof MetricValues;

interface MetricInfo {
  label: string;
  /** Words that name it, any case; the longest match wins ("max drawdown" over "max"). */
  words: readonly string[];
  /** Whether larger is better; for mdd (signed, ≤ 0) closer to 0 is larger. */
  higher: boolean;
  /** A decimal shown as a percent (0.1 = 10 %): "10 %" and bare numbers above 1 are read as percents. */
  percent: boolean;
  /** Smallest and largest meaningful value (a constraint outside is a typo). */
  min: number;
  max: number;
}

export const METRICS: Record<MetricName, MetricInfo> = {
  pf: {
    label: 'profit factor',
    words: ['profit factor', 'profit-factor', 'profitfactor', 'pf'],
    higher: true,
    percent: false,
    min: 0,
    max: 1e6,
  },
  sharpe: { label: 'Sharpe ratio', words: ['sharpe ratio', 'sharpe'], higher: true, percent: false, min: -1e6, max: 1e6 },
  ret: {
    label: 'total return',
    words: ['total return', 'returns', 'return', 'ret', 'roi'],
    higher: true,
    percent: true,
    min: -1e6,
    max: 1e6,
  },
  np: {
    label: 'net profit in USD',
    words: ['net profit', 'net pnl', 'profit', 'pnl', 'p&l', 'p/l', 'np'],
    higher: true,
    percent: false,
    min: -1e12,
    max: 1e12,
  },
  wr: {
    label: 'win rate',
    words: ['win rate', 'winrate', 'win-rate', 'win ratio', 'win percentage', 'winning percentage', 'win %', 'hit rate', 'wr'],
    higher: true,
    percent: true,
    min: 0,
    max: 1,
  },
  n: {
    label: 'number of trades',
    words: ['number of trades', 'trade count', 'trades', 'trade', 'n'],
    higher: true,
    percent: false,
    min: 0,
    max: 1e9,
  },
  wins: { label: 'number of winning trades', words: ['winning trades', 'winners', 'wins'], higher: true, percent: false, min: 0, max: 1e9 },
  losses: {
    label: 'number of losing trades',
    words: ['losing trades', 'losers', 'losses'],
    higher: false,
    percent: false,
    min: 0,
    max: 1e9,
  },
  rr: {
    label: 'average win / average loss',
    words: [
      'reward to risk',
      'reward-to-risk',
      'reward/risk',
      'risk reward',
      'risk-reward',
      'risk/reward',
      'payoff ratio',
      'win/loss ratio',
      'win loss ratio',
      'r:r',
      'rr',
    ],
    higher: true,
    percent: false,
    min: 0,
    max: 1e6,
  },
  expect: {
    label: 'expectancy in USD per trade',
    words: ['expectancy per trade', 'profit per trade', 'expected value', 'expectancy', 'expect', 'ev'],
    higher: true,
    percent: false,
    min: -1e12,
    max: 1e12,
  },
  mdd: {
    label: 'max drawdown',
    words: ['maximum drawdown', 'max drawdown', 'max dd', 'drawdowns', 'drawdown', 'mdd', 'dd'],
    higher: true,
    percent: true,
    min: -1e6,
    max: 0,
  },
  avg: {
    label: 'average trade return',
    words: ['average return per trade', 'return per trade', 'average trade return', 'average trade', 'avg trade', 'mean trade', 'avg'],
    higher: true,
    percent: true,
    min: -1e6,
    max: 1e6,
  },
  best: { label: 'best trade', words: ['best trade', 'largest win', 'biggest win'], higher: true, percent: true, min: -1e6, max: 1e6 },
  worst: { label: 'worst trade', words: ['worst trade', 'largest loss', 'biggest loss'], higher: true, percent: true, min: -1e6, max: 1e6 },
};

const METRIC_NAMES = Object.keys(METRICS) as MetricName[];
/** Longest inputs read; the request's field allows 300 characters. */
const MAX_TEXT = 300;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** A phrase as a whole word or words: not inside a longer word. */
const phrases = (list: readonly string[]) =>
  `(?<![a-z0-9])(?:${[...list]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|')})(?![a-z0-9])`;

const METRIC_OF = new Map(METRIC_NAMES.flatMap((m) => METRICS[m].words.map((w) => [w, m] as const)));
const METRIC_RE = new RegExp(phrases([...METRIC_OF.keys()]), 'g');

type Op = ObjectiveConstraint['op'];
/** Comparisons; "good" ones ("no worse than") are resolved per metric: ≥ for higher-is-better, ≤ else. */
const COMPARATORS: ReadonlyArray<[Op | 'good', readonly string[]]> = [
  [
    '>=',
    [
      'at least',
      'no less than',
      'not less than',
      'no fewer than',
      'not fewer than',
      'minimum of',
      'minimum',
      'min',
      'or more',
      'or higher',
      'or above',
      'or greater',
    ],
  ],
  [
    '<=',
    [
      'at most',
      'no more than',
      'not more than',
      'no greater than',
      'no higher than',
      'not above',
      'not over',
      'not exceeding',
      'maximum of',
      'maximum',
      'max',
      'up to',
      'within',
      'capped at',
      'limited to',
      'or less',
      'or lower',
      'or fewer',
      'or below',
    ],
  ],
  ['good', ['no worse than', 'not worse than', 'at worst']],
  [
    '>',
    [
      'more than',
      'greater than',
      'higher than',
      'larger than',
      'bigger than',
      'better than',
      'above',
      'over',
      'exceeding',
      'exceeds',
      'exceed',
    ],
  ],
  ['<', ['less than', 'fewer than', 'lower than', 'smaller than', 'under', 'below']],
];
const SYMBOLS: ReadonlyArray<[Op, RegExp]> = [
  ['>=', />=|≥|=>/],
  ['<=', /<=|≤|=</],
  ['>', />/],
  ['<', /</],
];
const COMPARATOR_RES = COMPARATORS.map(([op, words]) => [op, new RegExp(phrases(words))] as const);

const MAXIMISE = [
  'maximise',
  'maximize',
  'maximising',
  'maximizing',
  'maximum',
  'max',
  'highest',
  'high',
  'higher',
  'best',
  'most',
  'greatest',
  'largest',
  'biggest',
  'big',
  'top',
  'increase',
  'more',
  'better',
];
const MINIMISE = [
  'minimise',
  'minimize',
  'minimising',
  'minimizing',
  'minimum',
  'min',
  'lowest',
  'low',
  'lower',
  'least',
  'smallest',
  'small',
  'fewest',
  'few',
  'minimal',
  'reduce',
  'decrease',
  'less',
  'fewer',
  'shallow',
  'shallowest',
];
const NEUTRAL = ['optimise', 'optimize', 'optimising', 'optimizing', 'improve', 'target', 'focus on', 'prefer'];
const MAX_RE = new RegExp(phrases(MAXIMISE));
const MIN_RE = new RegExp(phrases(MINIMISE));
/** Words a clause may hold besides its metric and verb. */
const FILLER = new Set([
  'i',
  'we',
  'want',
  'would',
  'like',
  'need',
  'to',
  'the',
  'a',
  'an',
  'my',
  'our',
  'its',
  'of',
  'for',
  'on',
  'in',
  'please',
  'strategy',
  'model',
  'possible',
  'overall',
  'also',
  'just',
  'only',
  'should',
  'be',
  'is',
  'are',
  'keep',
  'keeping',
  'have',
  'having',
  'get',
  'aim',
  'goal',
  'objective',
  'metric',
  'as',
  'it',
  'trading',
  'then',
  'so',
  'that',
  'ratio',
  'value',
  'per',
  'total',
  ...MAXIMISE,
  ...MINIMISE,
  ...NEUTRAL.flatMap((w) => w.split(' ')),
]);

const NUMBER_RE = /(?<![a-z0-9.])([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*(%|percent\b|pct\b)?/;

/** Lower case, one form of each sign and space; thousands separators and decimal commas undone. */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u200b-\u200f\u2060\ufeff]/g, '')
    .replace(/[\u2212\u2012\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .replace(/(\d),(\d{3})(?!\d)/g, '$1$2')
    .replace(/(\d),(\d{1,2})(?!\d)/g, '$1.$2')
    .trim();
}

/** Clauses: one metric each (commas, "and", "with", "while", …). Decimal points stay. */
const SPLIT_RE =
  /[,;]|\.(?!\d)|\s(?:and|&|with|while|but|where|whilst|keeping|keep|if|as long as|so long as|subject to|provided|given|plus)(?=\s|$)/g;

const percentText = (v: number) => `${Number((v * 100).toPrecision(10))} %`;
const shown = (m: MetricName, v: number) => (METRICS[m].percent ? percentText(v) : String(v));

function unparseable(why: string): never {
  const known = METRIC_NAMES.map((m) => `${m} (${METRICS[m].label})`).join(', ');
  const error = new UnprocessableError(
    `the objective could not be read: ${why}. Name one metric to optimise, optionally with constraints, e.g. "pf", ` +
      `"maximise profit factor with drawdown under 10 %" or "highest return, at least 50 trades, win rate above 55%". The metrics are ${known}`,
  );
  error.details = { metrics: METRIC_NAMES };
  throw error;
}

interface Found {
  metric: MetricName;
  phrase: string;
}

function metricsIn(clause: string): Found[] {
  return [...clause.matchAll(METRIC_RE)].map((m) => ({ metric: METRIC_OF.get(m[0])!, phrase: m[0] }));
}

/** The comparison a clause states, by its words or symbols (null: none). */
function comparison(rest: string): Op | 'good' | null {
  for (const [op, re] of SYMBOLS) if (re.test(rest)) return op;
  let first: { op: Op | 'good'; at: number } | null = null;
  for (const [op, re] of COMPARATOR_RES) {
    const m = re.exec(rest);
    if (m && (first === null || m.index < first.at)) first = { op, at: m.index };
  }
  return first?.op ?? null;
}

/**
 * A constraint from its clause. Drawdown is said as a depth ("drawdown under 10 %"): the number
 * bounds |mdd|, so the comparison turns over on the signed mdd (mdd > −0.1).
 */
function constraint(metric: MetricName, rest: string, clause: string): ObjectiveConstraint {
  const info = METRICS[metric];
  const m = NUMBER_RE.exec(rest)!;
  let value = Number(m[1]);
  if (!Number.isFinite(value)) unparseable(`"${m[1]}" in "${clause}" is not a finite number`);
  const saidPercent = m[2] !== undefined;
  if (saidPercent && !info.percent)
    unparseable(`the ${info.label} (${metric}) is not a percentage, so "${m[0].trim()}" in "${clause}" has no meaning`);
  if (info.percent && (saidPercent || Math.abs(value) > 1)) value /= 100;
  const said = rest.replace(m[0], ' ');
  let op = comparison(said);
  // Signed only as a formula ("mdd > -0.1"); in words a drawdown is a depth ("under -10 %" too).
  const signed = value < 0 && SYMBOLS.some(([, re]) => re.test(said));
  const depth = metric === 'mdd' && !signed && value !== 0;
  value = depth ? Math.abs(value) : value;
  // No comparison said: a bound in the good direction ("50 trades", "drawdown 10 %").
  const lowerIsBetter = depth || !info.higher;
  if (op === null || op === 'good') op = lowerIsBetter ? '<=' : '>=';
  if (depth) {
    value = -value;
    op = ({ '>=': '<=', '>': '<', '<=': '>=', '<': '>' } as const)[op];
  }
  value = Number(value.toPrecision(12));
  if (value < info.min || value > info.max) {
    unparseable(
      `${shown(metric, value)} is outside what the ${info.label} (${metric}) can be (${shown(metric, info.min)} to ${shown(metric, info.max)}), in "${clause}"`,
    );
  }
  return { metric, op, value };
}

/** Direction of an objective clause: its verb, else the metric's own better side. For drawdown, verbs speak of depth. */
function direction(metric: MetricName, rest: string): 'maximize' | 'minimize' {
  const info = METRICS[metric];
  const max = MAX_RE.exec(rest);
  const min = MIN_RE.exec(rest);
  let wantsMore: boolean;
  if (max && (!min || max.index < min.index)) wantsMore = true;
  else if (min) wantsMore = false;
  else return info.higher ? 'maximize' : 'minimize';
  // "minimise drawdown" is a shallower drawdown: a larger (closer to 0) signed mdd.
  if (metric === 'mdd') wantsMore = !wantsMore;
  return wantsMore ? 'maximize' : 'minimize';
}

const OP_WORDS: Record<Op, string> = { '>=': 'at least', '>': 'above', '<=': 'at most', '<': 'below' };

function describeConstraint(c: ObjectiveConstraint): string {
  const m = c.metric as MetricName;
  if (m === 'mdd') {
    const depth = percentText(-c.value);
    const words = {
      '>=': `no deeper than ${depth}`,
      '>': `shallower than ${depth}`,
      '<=': `at least ${depth} deep`,
      '<': `deeper than ${depth}`,
    }[c.op];
    return `max drawdown ${words} (mdd ${c.op} ${c.value})`;
  }
  return `${METRICS[m].label} ${OP_WORDS[c.op]} ${shown(m, c.value)} (${m} ${c.op} ${c.value})`;
}

function echo(metric: MetricName, dir: 'maximize' | 'minimize', constraints: ObjectiveConstraint[]): string {
  const goal =
    metric === 'mdd'
      ? `${dir === 'maximize' ? 'Keep the max drawdown as shallow as possible' : 'Make the max drawdown as deep as possible'} (${dir} mdd, which is ≤ 0)`
      : `${dir === 'maximize' ? 'Maximise' : 'Minimise'} the ${METRICS[metric].label} (${metric})`;
  if (constraints.length === 0) return `${goal}.`;
  return `${goal}, among trials with ${constraints.map(describeConstraint).join(' and ')}; trials that miss a constraint are never chosen.`;
}

/** The words of a clause (letters and digits; signs and punctuation dropped). */
const words = (text: string) => text.split(/[^a-z0-9]+/).filter((w) => w !== '');

const ALL_COMPARATORS_RE = new RegExp(phrases(COMPARATORS.flatMap(([, w]) => w)), 'g');
const NUMBERS_RE = new RegExp(NUMBER_RE.source, 'g');
/** A clause without its numbers and comparisons: what is left must be filler. */
const unsaid = (rest: string) => rest.replace(NUMBERS_RE, ' ').replace(ALL_COMPARATORS_RE, ' ');

/**
 * Reads the `optimization` text into a metric, its direction and constraints, with the sentence
 * that echoes it. Throws UnprocessableError (422) listing the metrics when it cannot.
 */
export function parseObjective(text: string): Objective {
  if (typeof text !== 'string' || text.trim() === '') unparseable('it is empty');
  if (text.length > MAX_TEXT) unparseable(`it is longer than ${MAX_TEXT} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) unparseable('it contains control characters');
  const clauses = normalise(text)
    .split(SPLIT_RE)
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const goals: Array<{ metric: MetricName; dir: 'maximize' | 'minimize'; clause: string }> = [];
  const constraints: ObjectiveConstraint[] = [];
  for (const clause of clauses) {
    const found = metricsIn(clause);
    let rest = clause;
    for (const f of found) rest = rest.replace(f.phrase, ' ');
    const hasNumber = NUMBER_RE.test(rest);
    if (found.length === 0) {
      if (hasNumber) unparseable(`"${clause}" names no metric`);
      const unknown = words(rest).filter((w) => !FILLER.has(w));
      if (unknown.length > 0) unparseable(`"${unknown[0]}" is not a metric`);
      continue;
    }
    const metrics = [...new Set(found.map((f) => f.metric))];
    if (metrics.length > 1) {
      unparseable(
        `"${clause}" names ${metrics.join(' and ')}: one metric is optimised, the others are constraints (e.g. "maximise ${metrics[0]}, ${metrics[1]} above …")`,
      );
    }
    const metric = metrics[0]!;
    const stray = words(unsaid(rest)).find((w) => !FILLER.has(w));
    if (stray !== undefined) unparseable(`"${stray}" in "${clause}" is not understood`);
    if (hasNumber) constraints.push(constraint(metric, rest, clause));
    else goals.push({ metric, dir: direction(metric, rest), clause });
  }
  if (goals.length === 0) unparseable(constraints.length > 0 ? 'it has constraints but no metric to optimise' : 'it names no metric');
  const distinct = [...new Set(goals.map((g) => g.metric))];
  if (distinct.length > 1 || new Set(goals.map((g) => g.dir)).size > 1) {
    unparseable(
      `it asks to optimise ${goals.map((g) => `"${g.clause}"`).join(' and ')}: one metric is optimised, the others can be constraints`,
    );
  }
  const { metric, dir } = goals[0]!;
  return { metric, direction: dir, constraints, echo: echo(metric, dir, constraints) };
}

/** Whether a trial's metrics meet a constraint. */
export function meets(c: ObjectiveConstraint, metrics: MetricValues): boolean {
  const v = metrics[c.metric as MetricName];
  if (typeof v !== 'number' || Number.isNaN(v)) return false;
  switch (c.op) {
    case '>=':
      return v >= c.value;
    case '>':
      return v > c.value;
    case '<=':
      return v <= c.value;
    case '<':
      return v < c.value;
  }
}

/**
 * A trial under the objective: its metric's value (null when not finite), whether it meets every
 * constraint, and the ones it misses (as their echo words).
 */
export function scoreTrial(objective: Objective, metrics: MetricValues): { value: number | null; feasible: boolean; missed: string[] } {
  const raw = metrics[objective.metric as MetricName];
  const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
  const missed = objective.constraints.filter((c) => !meets(c, metrics)).map(describeConstraint);
  return { value, feasible: missed.length === 0, missed };
}
