/**
 * The charging flow of POST /indicators/custom: 1 credit charged once per call; a failure of ours
 * is retried once (then the credit is refunded); a script problem is refunded at once and
 * answered 422, unless the run used up its step or time budget (charged: the work was done); Claude writes the Pine when asked and configured (our parser checks it and sends
 * its errors back for a repair), the offline writer otherwise or when Claude fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { log } from '../../helpers/nats.ts';
import { ClaudePineWriter, CustomIndicators } from '../../../src/generation/index.ts';
import { PinePool, type PineJobResult } from '../../../src/pine/index.ts';
import { OutOfCreditsError, UnprocessableError } from '../../../src/errors.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { CustomIndicatorRequest } from '../../../schemas/custom-indicators.ts';
import { waveBars } from '../../helpers/wave-bars.ts';

const bars = { ...waveBars(300), from: 100 };
const body = (source: string, extra: Partial<CustomIndicatorRequest> = {}): CustomIndicatorRequest => ({
  source,
  provider: 'offline',
  fe_mode: 'basic',
  symbol: 'EURUSD',
  timeframe: '15min',
  limit: 200,
  ...extra,
});
const USER = { user_id: 1, plan: 'free' as const };
const SMA = '//@version=5\nindicator("s", overlay=true)\nplot(ta.sma(close, 10), "SMA")\n';
/** The response JSON as text (compute gives it in parts). */
const text = (parts: Uint8Array[]): string => Buffer.concat(parts).toString('utf8');

/** Credits as an account ledger keeps them: every movement recorded. */
function ledger(start = 10) {
  const moves: { kind: 'charge' | 'refund'; credits: number }[] = [];
  let balance = start;
  return {
    moves,
    current: () => balance,
    lastSeenBalance: async () => balance,
    charge: async (_u: number, credits: number) => {
      moves.push({ kind: 'charge', credits });
      return (balance -= credits);
    },
    refund: async (_u: number, credits: number) => {
      moves.push({ kind: 'refund', credits });
      return (balance += credits);
    },
    caps: [] as string[],
    aiBudgetLeft: async () => true,
    useCap: async function (_u: number, _plan: string, cap: string) {
      this.caps.push(`use ${cap}`);
      return { used: 1, limit: 3 };
    },
    releaseCap: async function (_u: number, cap: string) {
      this.caps.push(`release ${cap}`);
    },
  };
}

describe('CustomIndicators', () => {
  let pool: PinePool;
  before(() => {
    pool = new PinePool({ size: 1, wallMs: 2000, maxQueue: 8, heapMb: 256, nice: 0 });
  });
  after(() => pool.close());

  /** The real pool, failing (as a crashed worker answers) the first `failures` runs. */
  const flaky = (failures: number) => {
    let calls = 0;
    return {
      calls: () => calls,
      run: async (job: Parameters<PinePool['run']>[0]): Promise<PineJobResult> => {
        calls++;
        return calls <= failures ? { id: 0, ok: false, failure: 'the Pine worker failed: crashed' } : pool.run(job);
      },
    };
  };

  it('charges 1 credit once for a run', async () => {
    const credits = ledger();
    const custom = new CustomIndicators({ metering: credits, pool, claude: null, log });
    const res = JSON.parse(text(await custom.compute(USER, body(SMA), bars)));
    assert.deepEqual(credits.moves, [{ kind: 'charge', credits: 1 }]);
    assert.equal(res.credits_remaining, 9);
    assert.equal(res.count, 200);
    assert.equal(res.overlays[0]!.values.length, 200);
  });

  it('refuses a key without the credit (402) before any work, and charges nothing', async () => {
    const credits = ledger(0);
    const p = flaky(0);
    await assert.rejects(
      new CustomIndicators({ metering: credits, pool: p, claude: null, log }).compute(USER, body(SMA), bars),
      (e: Error & { status?: number }) => e.status === 402,
    );
    assert.equal(p.calls(), 0);
    assert.deepEqual(credits.moves, []);
  });

  it('a balance another edge spent since this one last saw it: the run is dropped with the charge’s 402, and nothing is charged', async () => {
    const credits = { ...ledger(5), charge: async () => Promise.reject(new OutOfCreditsError(1, 0)) };
    const p = flaky(0);
    await assert.rejects(
      new CustomIndicators({ metering: credits, pool: p, claude: null, log }).compute(USER, body(SMA), bars),
      (e: Error & { status?: number }) => e.status === 402,
    );
    assert.equal(p.calls(), 1, 'the early check passed on the balance last seen');
    assert.deepEqual(credits.moves, [], 'no refund of a charge that never happened');
  });

  it('retries a failure of ours once and charges once when the retry succeeds', async () => {
    const credits = ledger();
    const p = flaky(1);
    const res = JSON.parse(
      text(await new CustomIndicators({ metering: credits, pool: p, claude: null, log }).compute(USER, body(SMA), bars)),
    );
    assert.equal(p.calls(), 2);
    assert.equal(res.overlays.length, 1);
    assert.deepEqual(credits.moves, [{ kind: 'charge', credits: 1 }]);
  });

  it('refunds when the retry fails too (500)', async () => {
    const credits = ledger();
    const p = flaky(2);
    await assert.rejects(
      new CustomIndicators({ metering: credits, pool: p, claude: null, log }).compute(USER, body(SMA), bars),
      (e: Error & { status?: number }) => e.status === 500 && /refunded/.test(e.message),
    );
    assert.equal(p.calls(), 2);
    assert.deepEqual(credits.moves, [
      { kind: 'charge', credits: 1 },
      { kind: 'refund', credits: 1 },
    ]);
    assert.equal(credits.current(), 10);
  });

  it('refunds a script problem without a retry and answers 422 with its position', async () => {
    const credits = ledger();
    const p = flaky(0);
    await assert.rejects(
      new CustomIndicators({ metering: credits, pool: p, claude: null, log }).compute(
        USER,
        body('//@version=5\nindicator("x")\nplot(ta.rci(close, 9))'),
        bars,
      ),
      (e: unknown) =>
        e instanceof UnprocessableError && e.details.line === 3 && e.details.column === 6 && e.details.construct === 'ta.rci()',
    );
    assert.equal(p.calls(), 1);
    assert.deepEqual(credits.moves, [
      { kind: 'charge', credits: 1 },
      { kind: 'refund', credits: 1 },
    ]);
  });

  it('keeps the credit of a run that used up its budget (422 saying so), and the pool serves that user last', async () => {
    const credits = ledger();
    // Loops within the per-loop bound, nested: past the step budget (or the time limit) on the first bar.
    const spin = '//@version=5\nindicator("spin")\ns = 0.0\nfor i = 0 to 9999\n    for j = 0 to 9999\n        s := s + j\nplot(s)\n';
    await assert.rejects(
      new CustomIndicators({ metering: credits, pool, claude: null, log }).compute({ ...USER, user_id: 41 }, body(spin), bars),
      (e: unknown) => e instanceof UnprocessableError && /steps|time limit/.test(e.message) && /charged/.test(e.message),
    );
    assert.deepEqual(credits.moves, [{ kind: 'charge', credits: 1 }], 'charged, not refunded');
    assert.ok(pool.penalized(41), "the run counts against the user's share of the pool");
    assert.ok(!pool.penalized(USER.user_id));
  });

  it('refunds a description that names no indicator it knows, and says which it knows (422)', async () => {
    const credits = ledger();
    const p = flaky(0);
    await assert.rejects(
      new CustomIndicators({ metering: credits, pool: p, claude: null, log }).compute(
        USER,
        body('something that makes money, please'),
        bars,
      ),
      (e: unknown) =>
        e instanceof UnprocessableError &&
        /no indicator recognised/.test(e.message) &&
        /Keltner/.test(e.message) &&
        /refunded/.test(e.message),
    );
    assert.equal(p.calls(), 0, 'nothing ran');
    assert.deepEqual(credits.moves, [
      { kind: 'charge', credits: 1 },
      { kind: 'refund', credits: 1 },
    ]);
  });

  it('answers how the offline writer read a description', async () => {
    const res = JSON.parse(
      text(
        await new CustomIndicators({ metering: ledger(), pool, claude: null, log }).compute(
          USER,
          body('RSI 14 below 30 on a volume spike'),
          bars,
        ),
      ),
    );
    assert.equal(res.generator, 'offline');
    assert.ok(
      res.remarks.some((r: string) => /left out: volume/.test(r)),
      `what it left out is said: ${JSON.stringify(res.remarks)}`,
    );
    const clear = JSON.parse(
      text(await new CustomIndicators({ metering: ledger(), pool, claude: null, log }).compute(USER, body('RSI 14 below 30'), bars)),
    );
    assert.deepEqual(clear.remarks, [], 'nothing to say when all of it was read');
    const pine = JSON.parse(
      text(await new CustomIndicators({ metering: ledger(), pool, claude: null, log }).compute(USER, body(SMA), bars)),
    );
    assert.deepEqual(pine.remarks, [], 'none for a Pine source');
  });

  describe('with Claude', () => {
    let fake: FakeAnthropic;
    before(async () => {
      fake = await startFakeAnthropic();
    });
    after(() => fake.close());
    const writer = () =>
      new ClaudePineWriter(
        { apiKey: 'sk-test', baseURL: fake.url, models: { haiku: 't-haiku', sonnet: 't-sonnet' }, repairTries: 1, maxRetries: 0 },
        { log, recordSpend: async () => {} },
      );

    it('writes the Pine, repaired once after our parser refused the draft', async () => {
      fake.queue(
        { text: '```pine\n//@version=5\nindicator("k", overlay=true)\nplot(ta.ema(close, 20)\n```' },
        { text: '```pine\n//@version=5\nindicator("k", overlay=true)\nplot(ta.ema(close, 20), "EMA 20")\n```' },
      );
      const before = fake.requests.length;
      const credits = ledger();
      const res = JSON.parse(
        text(
          await new CustomIndicators({ metering: credits, pool, claude: writer(), log }).compute(
            USER,
            body('an EMA 20', { provider: 'haiku' }),
            bars,
          ),
        ),
      );
      assert.deepEqual(credits.caps, ['use generate_haiku']);
      assert.equal(res.generator, 'claude');
      assert.equal(res.source_kind, 'text');
      assert.match(res.generated_pine!, /plot\(ta\.ema\(close, 20\), "EMA 20"\)/);
      assert.equal(fake.requests.length - before, 2);
      assert.equal(fake.requests.at(-1)!.body.model, 't-haiku');
      assert.match(JSON.stringify(fake.requests.at(-1)!.body.messages), /Our parser refuses it: line 3:23/);
    });

    it('sends an unsupported construct back for a repair too', async () => {
      fake.queue(
        { text: '```pine\n//@version=5\nindicator("d")\nplot(request.security(syminfo.tickerid, "D", close))\n```' },
        { text: '```pine\n//@version=5\nindicator("d")\nplot(ta.sma(close, 5), "SMA 5")\n```' },
      );
      const res = JSON.parse(
        text(
          await new CustomIndicators({ metering: ledger(), pool, claude: writer(), log }).compute(
            USER,
            body('daily close', { provider: 'sonnet' }),
            bars,
          ),
        ),
      );
      assert.equal(res.generator, 'claude');
      assert.match(JSON.stringify(fake.requests.at(-1)!.body.messages), /request\.security\(\) is not supported/);
      assert.equal(res.panels[0].series[0].name, 'sma_5');
    });

    it('falls back to the offline writer, without counting a cap, when the AI budget is spent', async () => {
      const credits = { ...ledger(), aiBudgetLeft: async () => false };
      const before = fake.requests.length;
      const res = JSON.parse(
        text(
          await new CustomIndicators({ metering: credits, pool, claude: writer(), log }).compute(
            USER,
            body('EMA 50', { provider: 'sonnet' }),
            bars,
          ),
        ),
      );
      assert.equal(res.generator, 'offline');
      assert.equal(fake.requests.length, before);
      assert.deepEqual(credits.caps, []);
    });

    it('falls back to the offline writer when the API fails', async () => {
      fake.queue({ status: 529, errorType: 'overloaded_error' });
      const credits = ledger();
      const res = JSON.parse(
        text(
          await new CustomIndicators({ metering: credits, pool, claude: writer(), log }).compute(
            USER,
            body('RSI 14 below 30', { provider: 'sonnet' }),
            bars,
          ),
        ),
      );
      assert.deepEqual(credits.caps, ['use generate_sonnet', 'release generate_sonnet']);
      assert.equal(res.generator, 'offline');
      assert.match(res.generated_pine!, /ta\.rsi\(close, 14\)/);
    });

    it('uses the offline writer for provider offline, without asking Claude', async () => {
      const before = fake.requests.length;
      const res = JSON.parse(
        text(
          await new CustomIndicators({ metering: ledger(), pool, claude: writer(), log }).compute(USER, body('EMA 9/21 crossover'), bars),
        ),
      );
      assert.equal(res.generator, 'offline');
      assert.equal(fake.requests.length, before);
    });
  });
});
