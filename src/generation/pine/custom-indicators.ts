/**
 * POST /indicators/custom as a capability: charge 1 credit (beside the run), write Pine from text when needed,
 * run it in the worker pool (a failure of ours is retried once), shape the response; a script
 * problem is refunded and answered 422 with its line:column, a failure of ours refunded too —
 * except a run that used up its step, time or memory budget: that work was done, so it stays
 * charged (as any compute service bills a run that hit its limit), and the pool serves the user
 * last for a while (pine/pool/pool.ts).
 */
import type { CustomIndicatorRequest, CustomIndicatorResponse } from '../../../schemas/custom-indicators.ts';
import type { Plan } from '../../../schemas/accounts.ts';
import type { Metering } from '../../accounts/index.ts';
import { capFor } from '../costs.ts';
import { InternalError, OutOfCreditsError, UnprocessableError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { PineBars, PineJobResult, PinePool, PineRunStamps } from '../../pine/index.ts';
import { INSTRUMENTS } from '../../lib/instruments.ts';
import type { ClaudePineWriter } from './claude-pine.ts';
import { pineFromText } from './from-text.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

export const CUSTOM_INDICATOR_CREDITS = 1;

/** A 422 for a script that used up its budget: the credit is kept. */
class BudgetSpentError extends UnprocessableError {}
const UNRECOGNISED =
  'no indicator recognised in your description: name one the offline writer knows — SMA, EMA, WMA, Bollinger bands, RSI, MACD, ' +
  'Stochastic, ATR, Keltner or Donchian channels, with their periods (e.g. "RSI 14 below 30", "20-period Keltner with 2 ATR bands") — ' +
  'or send Pine Script';

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Who calls: enough to charge credits and count Claude's daily cap. */
export interface CustomUser {
  user_id: number;
  plan: Plan;
}

/** The bars a script runs over; those before `from` are warm-up, not returned. */
export interface CustomBars extends PineBars {
  from: number;
}

export interface CustomIndicatorsDeps {
  metering: Pick<Metering, 'lastSeenBalance' | 'charge' | 'refund' | 'aiBudgetLeft' | 'useCap' | 'releaseCap'>;
  pool: Pick<PinePool, 'run'>;
  /** Claude, when the service has a key. */
  claude: Pick<ClaudePineWriter, 'write'> | null;
  log: Logger;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

/** The text is Pine when it has a version annotation, a header call, or a plot call. */
export function looksLikePine(source: string): boolean {
  return (
    /^\s*\/\/\s*@version\s*=/m.test(source) ||
    /^\s*(indicator|strategy|library)\s*\(/m.test(source) ||
    /^\s*plot(shape|char)?\s*\(/m.test(source)
  );
}

/**
 * Where a request's time went, in ms (the Server-Timing header): `queue` waiting for a free
 * worker, `worker` from hand-off to answer (the run, plus copying bars in and bytes out), `run`
 * the worker's parse and interpretation, `charge` waiting for the credit write after the run.
 */
export interface CustomTimings {
  queue?: number;
  worker?: number;
  run?: number;
  charge?: number;
}

export class CustomIndicators {
  private readonly clock: Clock;

  constructor(private readonly deps: CustomIndicatorsDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  /**
   * The response JSON, in parts to be sent one after another (the bulk of it printed and encoded
   * in the worker). `timing`, when given, receives the stages' durations in ms (CustomTimings).
   */
  async compute(user: CustomUser, body: CustomIndicatorRequest, bars: CustomBars, timing?: CustomTimings): Promise<Uint8Array[]> {
    const { metering, log } = this.deps;
    const userId = user.user_id;
    // A key without the credit is refused before any work (on the balance this process saw last:
    // no read per call); the charge itself (a balance write) then runs beside the script instead
    // of before it, and a run whose charge fails (a concurrent call, or another edge, took the
    // last credit) is dropped with that 402.
    const before = await metering.lastSeenBalance(userId, CUSTOM_INDICATOR_CREDITS);
    if (before < CUSTOM_INDICATOR_CREDITS) throw new OutOfCreditsError(CUSTOM_INDICATOR_CREDITS, before);
    const charge = metering.charge(userId, CUSTOM_INDICATOR_CREDITS, 'indicators_custom').then(
      (balance) => ({ ok: true as const, balance }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    let work: Awaited<ReturnType<CustomIndicators['work']>>;
    try {
      work = await this.work(user, body, bars, timing);
    } catch (err) {
      const charged = await charge;
      if (!charged.ok) throw charged.err;
      if (err instanceof BudgetSpentError) {
        err.message = `${err.message} (your credit was charged: the run used up its budget)`;
        throw err;
      }
      await metering
        .refund(userId, CUSTOM_INDICATOR_CREDITS, 'indicators_custom:failed')
        .catch((e) => log.error({ err: e }, 'refund failed'));
      if (err instanceof UnprocessableError) err.message = `${err.message} (your credit was refunded)`;
      throw err;
    }
    const waited = performance.now();
    const charged = await charge;
    if (timing) timing.charge = performance.now() - waited;
    if (!charged.ok) throw charged.err;
    const tail = { credits_charged: CUSTOM_INDICATOR_CREDITS, credits_remaining: charged.balance };
    // The worker's object without its braces, between ours: its bytes are sent as they came (no
    // copy of hundreds of KB on the event loop, no text re-encoded there).
    const shaped = work.shaped;
    return [
      Buffer.from(`${JSON.stringify(work.head).slice(0, -1)},`),
      shaped.subarray(1, shaped.length - 1),
      Buffer.from(`,${JSON.stringify(tail).slice(1)}`),
    ];
  }

  /**
   * Claude's Pine when the provider asks for it, Claude is configured and the platform's AI budget
   * is not spent; it counts against the model's daily cap as /generate does (429 past it), and a
   * fallback to the offline writer gives the cap back. Null: the offline writer answers.
   */
  private async claudePine(user: CustomUser, body: CustomIndicatorRequest): Promise<string | null> {
    const { claude, metering, log } = this.deps;
    if (body.provider === 'offline' || !claude || !(await metering.aiBudgetLeft())) return null;
    const cap = capFor(body.provider);
    const countedAt = this.clock.now();
    await metering.useCap(user.user_id, user.plan, cap);
    const written = await claude.write(body.source, body.provider).catch((err: unknown) => {
      log.warn({ err }, 'claude pine failed');
      return null;
    });
    if (!written) await metering.releaseCap(user.user_id, cap, countedAt).catch((err: unknown) => log.error({ err }, 'cap release failed'));
    return written;
  }

  private async work(
    user: CustomUser,
    body: CustomIndicatorRequest,
    bars: CustomBars,
    timing?: CustomTimings,
  ): Promise<{ head: Partial<CustomIndicatorResponse>; shaped: Uint8Array }> {
    const pine = looksLikePine(body.source);
    let source = body.source;
    let generator: CustomIndicatorResponse['generator'] = 'pine';
    let remarks: string[] = [];
    if (!pine) {
      const written = await this.claudePine(user, body);
      if (written) {
        source = written;
        generator = 'claude';
      } else {
        const offline = pineFromText(body.source, body.symbol, body.timeframe);
        // A default indicator set is not what was asked for: say what the writer knows instead.
        if (!offline.recognised) throw new UnprocessableError(UNRECOGNISED);
        ({ pine: source, remarks } = offline);
        generator = 'offline';
      }
    }
    const job = {
      source,
      bars: { ts: bars.ts, open: bars.open, high: bars.high, low: bars.low, close: bars.close, volume: bars.volume },
      timeframe: body.timeframe,
      symbol: body.symbol,
      mintick: INSTRUMENTS[body.symbol].pipSize / 10,
      shape: { from: bars.from, feMode: body.fe_mode },
    };
    const run = async (): Promise<PineJobResult> => {
      const stamps: PineRunStamps = {};
      const queued = performance.now();
      const r = await this.deps.pool.run(job, stamps, user.user_id);
      if (timing) {
        const dispatched = stamps.dispatchedAt ?? queued;
        timing.queue = dispatched - queued;
        timing.worker = performance.now() - dispatched;
        if (r.ok) timing.run = r.parseMs + r.runMs;
      }
      return r;
    };
    let result = await run();
    if (!result.ok && 'failure' in result) {
      this.deps.log.warn({ err: result.failure }, 'custom indicator failed, retrying once');
      result = await run();
    }
    if (!result.ok) {
      if ('problem' in result) {
        const p = result.problem;
        const Problem = p.exhausted ? BudgetSpentError : UnprocessableError;
        throw Object.assign(new Problem(pine ? p.message : `the Pine written from your description failed: ${p.message}`), {
          details: { line: p.line, column: p.col, construct: p.construct, ...(pine ? {} : { generated_pine: source }) },
        });
      }
      this.deps.log.error({ err: result.failure }, 'custom indicator failed twice');
      throw new InternalError('the indicator could not be computed because of a fault on our side; your credit was refunded, try again');
    }
    const head: Partial<CustomIndicatorResponse> = {
      source_kind: pine ? 'pine' : 'text',
      generated_pine: pine ? null : source,
      remarks,
      generator,
      symbol: body.symbol,
      timeframe: body.timeframe,
      count: bars.ts.length - bars.from,
      warmup: bars.from,
      run: { steps: result.result.steps, parse_ms: round(result.parseMs), run_ms: round(result.runMs) },
    };
    return { head, shaped: result.body! };
  }
}
