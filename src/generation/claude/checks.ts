import { checkStrategyCode, checkStrategyConfig, StrategyJobError, type StrategyRuntime } from '../../sandbox/index.ts';
import type { CheckResult } from '../../../schemas/strategy.ts';

/** Checks generated code: every violation at once (ok iff none). */
export type StrategyCheck = (code: string) => Promise<CheckResult>;

/**
 * The checks generated code must pass before anyone sees it: the static AST check, then
 * strategy_config() run in the sandboxed runtime (its `config` op, so a config built from
 * expressions is judged by what it returns) and validated against the StrategyConfig schema.
 * Rejects only when a checker cannot answer (UnavailableError).
 */
export function strategyChecks(runtime: Pick<StrategyRuntime, 'config'>): StrategyCheck {
  return async (code) => {
    const statics = await checkStrategyCode(code);
    if (!statics.ok) return statics;
    let value: unknown;
    try {
      value = await runtime.config(code, { timeoutMs: 10_000 });
    } catch (err) {
      if (!(err instanceof StrategyJobError)) throw err;
      const message = err.message.split('\n').slice(-3).join(' ').slice(0, 500);
      return {
        ok: false,
        violations: [
          {
            line: 0,
            col: 0,
            rule: 'config-run',
            message: `running strategy_config() failed (${err.kind}): ${message}`,
            hint: 'return a plain dict literal; compute nothing in strategy_config()',
          },
        ],
      };
    }
    return checkStrategyConfig(value);
  };
}
