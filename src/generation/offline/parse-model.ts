/**
 * The model in normalised text: its class ("random forest", "xgboost", "gradient boosting",
 * "extra trees", "logistic", "adaboost"; others mapped to the nearest available one, with a
 * remark), its size ("300 trees", "max depth 5", "learning rate 0.05"), the target horizon
 * ("predict the next hour" → bars of the timeframe) and the confidence threshold ("only when 60%
 * confident"), plus what to optimise for.
 */
import type { Timeframe } from '../../../schemas/common.ts';
import type { ModelType } from '../../../schemas/strategy.ts';
import { minutesToBars } from './market.ts';
import { findAll, type Finding } from './parse-rules.ts';

export interface ModelFindings {
  type: Finding<ModelType>[];
  /** Hyper-parameters asked for, by their sklearn/xgboost name (bounded later per class). */
  params: Finding<[string, number | string]>[];
  horizon: Finding<number>[];
  threshold: Finding<number>[];
  objective: Finding<string>[];
  remarks: string[];
}

const CLASSES: Array<[RegExp, ModelType]> = [
  [/\b(?:xgboost|xg boost|extreme gradient boosting)\b/, 'XGBClassifier'],
  [/\b(?:gradient boost(?:ing|ed)?(?: trees?| machines?| classifier)?|gbm|gbdt|gbt|boosted trees)\b/, 'GradientBoostingClassifier'],
  [/\b(?:random forests?|rf|forest)\b/, 'RandomForestClassifier'],
  [/\b(?:extra trees?|extremely randomi[sz]ed trees)\b/, 'ExtraTreesClassifier'],
  [/\b(?:logistic(?: regression)?|logit|linear (?:model|classifier))\b/, 'LogisticRegression'],
  [/\b(?:adaboost|ada boost|adaptive boosting)\b/, 'AdaBoostClassifier'],
];

/** Classes the trainer does not have, and what stands in for them. */
const SUBSTITUTES: Array<[RegExp, ModelType, string]> = [
  [/\b(lightgbm|lgbm|catboost)\b/, 'XGBClassifier', 'gradient-boosted trees'],
  [/\b(decision tree)\b/, 'RandomForestClassifier', 'a forest of trees'],
  [
    /\b(neural net(?:work)?s?|lstm|deep learning|transformer|mlp|perceptron|cnn|rnn)\b/,
    'RandomForestClassifier',
    'the default tree ensemble',
  ],
  [/\b(svm|support vector|knn|k nearest neighbou?rs?|naive bayes)\b/, 'LogisticRegression', 'a linear model'],
];

const NUM = '(\\d+(?:\\.\\d+)?|\\.\\d+)(?!\\d|\\.\\d)';

const PARAMS: Array<[RegExp, string]> = [
  [new RegExp(`\\b${NUM} ?(?:trees|estimators|rounds|boosting rounds)\\b`), 'n_estimators'],
  [new RegExp(`\\bn ?estimators(?: =| :| of)? ?${NUM}`), 'n_estimators'],
  [new RegExp(`\\b(?:max ?depth|tree depth|depth)(?: of| =| :)? ?${NUM}`), 'max_depth'],
  [new RegExp(`\\b${NUM} (?:levels? )?deep\\b`), 'max_depth'],
  [new RegExp(`\\b(?:learning rate|eta|shrinkage)(?: of| =| :)? ?${NUM}`), 'learning_rate'],
  [new RegExp(`\\bmin ?samples ?leaf(?: =| :| of)? ?${NUM}`), 'min_samples_leaf'],
  [new RegExp(`\\b(?:c|inverse regulari[sz]ation) ?(?:=|:) ?${NUM}`), 'C'],
  [new RegExp(`\\bsubsample(?: =| :| of)? ?${NUM}`), 'subsample'],
];

const HORIZON_UNIT = '(bars?|candles?|periods?|minutes?|m|hours?|h|days?|sessions?)';
const HORIZON = [
  new RegExp(
    `\\b(?:predict|predicting|forecast|forecasting|target|horizon|look(?:ing)? ahead|over|within|for|in) (?:the )?next ${NUM}? ?${HORIZON_UNIT}\\b`,
  ),
  new RegExp(
    `\\b(?:predict|forecast|target|horizon|hold(?:ing)?|holding period|look(?:ing)? ahead)(?: for| of| =| :| about| around| roughly| ~| the| trades for)* ${NUM} ?${HORIZON_UNIT}\\b`,
  ),
  new RegExp(`\\b${NUM} ?${HORIZON_UNIT} (?:ahead|forward|out|into the future|horizon|holding period|hold)\\b`),
  new RegExp(`\\b(?:target ?horizon|horizon)(?: =| :| of)? ${NUM}\\b(?! ?(?:minutes|m|hours|h|days)\\b)`),
  new RegExp(`(?<!(?:on|at|of|open|in|from) the )\\bnext (?:${NUM} )?${HORIZON_UNIT}\\b`),
];

function horizonBars(m: RegExpMatchArray, tf: Timeframe): number | null {
  const groups = m.slice(1).filter((g) => g !== undefined);
  const unit = (groups.find((g) => /^[a-z]/.test(g)) ?? 'bars').replace(/^(bar|candle|period|minute|hour|day|session)$/, '$1s');
  const n = Number(groups.find((g) => /^[\d.]/.test(g)) ?? 1);
  if (!Number.isFinite(n) || n <= 0) return null;
  const minutes =
    unit === 'minutes' || unit === 'm'
      ? n
      : unit === 'hours' || unit === 'h'
        ? n * 60
        : unit === 'days'
          ? n * 1440
          : unit === 'sessions'
            ? n * 480
            : null;
  return minutes === null ? Math.max(1, Math.round(n)) : minutesToBars(minutes, tf);
}

const THRESHOLD = [
  new RegExp(`\\b${NUM} ?(?:%|percent) (?:confident|confidence|sure|certain|probability|prob|likely|chance)\\b`),
  new RegExp(
    `\\b(?:confidence|probability|certainty|prob|signal threshold|proba threshold|probability threshold|confidence threshold|predict ?proba)(?: threshold| cutoff| cut off| level)?(?: of| =| :| above| over| at least| >=| >| greater than| at| is| exceeds| higher than)* ${NUM} ?(%|percent)?`,
  ),
  new RegExp(`\\bthreshold(?: of| =| :| at)? (0?\\.\\d+|\\d+(?:\\.\\d+)? ?(?:%|percent))`),
];

const QUALITATIVE_THRESHOLD: Array<[RegExp, number]> = [
  [/\b(?:very high confidence|very confident|very sure|only the strongest signals)\b/, 0.65],
  [/\b(?:high(?:ly)? confiden(?:ce|t)|only (?:strong|high quality|high conviction|the best) signals|high conviction)\b/, 0.6],
  [/\b(?:conservative|cautious|selective)\b/, 0.6],
  [/\b(?:aggressive|more trades|trade often|frequent)\b/, 0.52],
];

const OBJECTIVES: Array<[RegExp, string]> = [
  [/\bsharpe\b/, 'Maximise the Sharpe ratio'],
  [/\bsortino\b/, 'Maximise the Sortino ratio'],
  [/\bprofit factor\b/, 'Maximise the profit factor'],
  [/\b(?:win rate|winrate|hit rate|accuracy|win percentage)\b/, 'Maximise the win rate'],
  [/\b(?:drawdown|dd)\b/, 'Keep the drawdown small'],
  [/\bexpectancy\b/, 'Maximise the expectancy per trade'],
  [/\bcalmar\b/, 'Maximise return over drawdown (Calmar)'],
  [/\b(?:total return|returns?|net profit|profits?|pnl|p&l)\b/, 'Maximise the total return'],
];

/** Model statements in one normalised text. `objectives` also reads bare metric names (the optimization field). */
export function parseModel(text: string, tf: Timeframe, objectivesFromAnyMention: boolean): ModelFindings {
  const remarks: string[] = [];
  const type = CLASSES.flatMap(([re, t]) => findAll(text, [re], () => t));
  // "extreme gradient boosting" also contains "gradient boosting": drop findings inside a longer one.
  const spans = type.map((f) => [f.at, f.at + f.phrase.length] as const);
  const kept = type.filter(
    (f, i) => !spans.some(([a, b], j) => j !== i && a <= f.at && f.at + f.phrase.length <= b && b - a > f.phrase.length),
  );
  for (const [re, t, what] of SUBSTITUTES) {
    for (const f of findAll(text, [re], (m) => m[1]!)) {
      remarks.push(`${f.value} is not available to the trainer; using ${t} (${what}) instead`);
      kept.push({ value: t, at: f.at, phrase: f.phrase });
    }
  }
  const params: Finding<[string, number | string]>[] = PARAMS.flatMap(([re, key]) =>
    findAll(text, [re], (m): [string, number | string] | null => (Number.isFinite(Number(m[1])) ? [key, Number(m[1])] : null)),
  );
  if (/\bbalanced\b/.test(text)) params.push({ value: ['class_weight', 'balanced'], at: text.search(/\bbalanced\b/), phrase: 'balanced' });
  for (const [re, n] of [
    [/\b(?:fast|quick|light|small|lightweight) model\b/, 100],
    [/\b(?:big|large|heavy|strong) model\b/, 400],
  ] as const) {
    params.push(...findAll(text, [re], (): [string, number | string] => ['n_estimators', n]));
  }
  params.push(...findAll(text, [/\b(?:shallow|simple) trees?\b/], (): [string, number | string] => ['max_depth', 3]));

  const horizon = findAll(text, HORIZON, (m) => horizonBars(m, tf));
  const threshold = [
    ...findAll(text, THRESHOLD, (m) => {
      const raw = m[1]!;
      const pct = /%|percent/.test(m[0].slice(m[0].indexOf(raw) + raw.length)) || /%|percent/.test(raw);
      let v = parseFloat(raw);
      if (pct || v > 1) v /= 100;
      return Number.isFinite(v) && v > 0 ? v : null;
    }),
    ...QUALITATIVE_THRESHOLD.flatMap(([re, v]) => findAll(text, [re], () => v)),
  ].sort((a, b) => a.at - b.at);

  const objective = OBJECTIVES.flatMap(([re, label]) =>
    findAll(
      text,
      [
        objectivesFromAnyMention
          ? re
          : new RegExp(
              `\\b(?:maximi[sz]e|optimi[sz]e|minimi[sz]e|best|highest|lowest|low|high|for|improve|focus on|target)(?: the| a| my)? ${re.source.slice(2)}`,
            ),
      ],
      () => label,
    ),
  ).sort((a, b) => a.at - b.at);
  return { type: kept.sort((a, b) => a.at - b.at), params: params.sort((a, b) => a.at - b.at), horizon, threshold, objective, remarks };
}
