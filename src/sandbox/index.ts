// Running untrusted strategy code: the one way in for the rest of the service.
export {
  StrategyRuntime,
  StrategyJobError,
  type RuntimeOptions,
  type TrainOptions,
  type TrainResult,
  type TrainedFold,
  type FoldOptions,
  type AnalysisResult,
  type MetaLabels,
} from './runtime-pool.ts';
export { applyOverrides, type ModelOverrides } from './model-overrides.ts';
export type { AnalysisCheck, AnalysisProblem, JobFailureKind, SuggestDistribution, SuggestRequest, SuggestTrial } from './runtime-pool.ts';
export { decodeFeatures, ohlcPayload, type FeaturesResult, type JobLimits } from './codec.ts';
export { FeatureSession } from './feature-session.ts';
export {
  checkStrategyCode,
  checkStrategyConfig,
  strategyConfigJsonSchema,
  MAX_CODE_BYTES,
  STRATEGY_CONFIG_SCHEMA_FILE,
} from './static-check.ts';
export { codeHeader, readCodeHeader, resolveMarket } from './code-header.ts';
export { IDLE_FACTOR, IDLE_SLACK_MS, wallBackstops } from './job-clock.ts';
export { configureSandbox, sandboxSupport, type SandboxMode, type Walls } from './jail-command.ts';
