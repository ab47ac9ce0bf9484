/**
 * The edge stays responsive while hostile strategies run: `/_healthz` latency, polled every 10 ms,
 * first on a quiet service and then while one user submits hostile train jobs back to back over
 * HTTP (2,400 feature columns on a year of 15-min bars; a strategy_config() answer of megabytes;
 * stderr flooding). Goal: p99 ≤ 50 ms under attack. Runs the real service as a child process.
 */
import { apiCaller } from './lib/api.ts';
import { trainableStrategy } from './lib/strategies.ts';
import { numberOption, type Benchmark } from './lib/types.ts';
import { startServiceProcess, waitForQuiet } from './lib/service.ts';

const HEADER = '# signalforge: symbol=EURUSD timeframe=15min\nimport numpy as np\nimport pandas as pd\n';
// A valid strategy_config(): the hostile part must reach the feature stage, past the config check.
const TRAINABLE = trainableStrategy('RandomForestClassifier', "{'n_estimators': 10}");
const CONFIG = TRAINABLE.slice(TRAINABLE.indexOf('def strategy_config'));
const HOSTILE: Record<string, string> = {
  'too-wide': `${HEADER}
def feature_engineering(df, close, open_, high, low):
    wide = pd.DataFrame({f"f{i}": close.shift(1 + i % 50) for i in range(2400)}, index=df.index)
    return pd.concat([df, wide], axis=1).bfill().ffill()
${CONFIG}`,
  'print-flood': `${HEADER}
def feature_engineering(df, close, open_, high, low):
    for i in range(20000):
        print('x' * 1000)
    df['ret'] = close.pct_change().fillna(0.0)
    return df
${CONFIG}`,
};

function percentiles(times: number[]): { p50: number; p99: number; max: number; n: number } {
  const s = [...times].sort((a, b) => a - b);
  const at = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]! * 100) / 100;
  return { p50: at(0.5), p99: at(0.99), max: Math.round(s[s.length - 1]! * 100) / 100, n: s.length };
}

export const benchmark: Benchmark = {
  name: 'sandbox-hostile',
  description: '/_healthz latency (every 10 ms) quiet vs while hostile train jobs run back to back (goal p99 ≤ 50 ms)',
  async run(ctx) {
    const seconds = numberOption(ctx, 'seconds', 15);
    const service = await startServiceProcess(
      { HISTORY_DAYS: '365', RATE_LIMIT_PER_MIN: '1000000', TRIAL_CREDITS: '1000', TRIAL_MINTS_PER_HOUR: '1000' },
      { signal: ctx.signal, log: ctx.log, timeoutMs: 180_000 },
    );
    ctx.defer(() => service.stop().then(() => undefined));
    await waitForQuiet(60_000, ctx.signal);
    const call = apiCaller(service.url);
    const mint = async (): Promise<string> => (await call('POST', '/api/v1/key/trial', {})).api_key;

    const poll = async (until: () => boolean): Promise<number[]> => {
      const times: number[] = [];
      while (!until()) {
        const t = performance.now();
        const res = await fetch(`${service.url}/_healthz`);
        await res.arrayBuffer();
        times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
      return times;
    };
    const quietEnd = performance.now() + seconds * 1000;
    const quiet = await poll(() => performance.now() > quietEnd);

    let stop = false;
    const outcomes: Record<string, string[]> = {};
    // The attacker takes a fresh trial key whenever one reaches its daily training cap (100).
    let key = await mint();
    const attacker = (async () => {
      for (let i = 0; !stop; i++) {
        const [name, code] = Object.entries(HOSTILE)[i % Object.keys(HOSTILE).length]!;
        const body = { code, symbol: 'EURUSD', timeframe: '15min', model_name: `hostile ${i}` };
        const start = await call('POST', '/api/v1/train', body, key).catch(async () =>
          call('POST', '/api/v1/train', body, (key = await mint())),
        );
        for (;;) {
          const job = await call('GET', `/api/v1/train/${start.job_id}`, undefined, key);
          if (job.status === 'done' || job.status === 'failed') {
            (outcomes[name] ??= []).push(job.status === 'failed' ? String(job.error).slice(0, 120) : 'done');
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
    const attackEnd = performance.now() + seconds * 1000;
    const attacked = await poll(() => performance.now() > attackEnd);
    stop = true;
    await attacker;
    const under = percentiles(attacked);
    return [
      {
        name: 'healthz-under-hostile-jobs',
        quiet_ms: percentiles(quiet),
        under_attack_ms: under,
        jobs: Object.fromEntries(Object.entries(outcomes).map(([k, v]) => [k, { runs: v.length, outcome: v[0] }])),
        goal_p99_ms: 50,
        met: under.p99 <= 50,
        note: 'one client polls /_healthz every 10 ms; another user submits the hostile strategies back to back over HTTP',
      },
    ];
  },
};
