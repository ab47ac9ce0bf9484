import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IndicatorSchema } from '../../schemas/indicators.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('GET /api/v1/indicator-schema', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService();
  });
  after(() => sf.stop());

  it('answers without a key: the eight indicators, their keys, defaults, bounds, columns and warm-up', async () => {
    const res = await sf.api('GET', '/api/v1/indicator-schema');
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = IndicatorSchema.parse(res.body);
    assert.deepEqual(
      body.indicators.map((i) => i.name),
      ['sma', 'ema', 'wma', 'bb', 'rsi', 'macd', 'stoch', 'atr'],
    );
    const byName = new Map(body.indicators.map((i) => [i.name, i]));
    const rsi = byName.get('rsi')!;
    assert.equal(rsi.enabled_key, 'rsi_enabled');
    assert.deepEqual(
      rsi.params.map(({ key, type, default: d, min, max }) => ({ key, type, d, min, max })),
      [{ key: 'rsi_period', type: 'integer', d: 14, min: 2, max: 500 }],
    );
    assert.deepEqual(rsi.columns, { patterns: ['rsi_{period}'], defaults: ['rsi_14'] });
    assert.deepEqual(byName.get('macd')!.columns.defaults, ['macd_12_26_9', 'macd_signal_12_26_9', 'macd_hist_12_26_9']);
    assert.deepEqual(byName.get('macd')!.constraints, [{ param: 'fast', less_than: 'slow' }]);
    assert.deepEqual(byName.get('bb')!.columns.defaults, ['bb_upper_20_2', 'bb_middle_20_2', 'bb_lower_20_2']);
    assert.equal(byName.get('sma')!.warmup.bars, 19);
    assert.match(body.column_naming, /2p5/);
    assert.match(body.warmup, /1e-12/);
  });

  it('is the same with a key, and documented in /openapi.json as IndicatorSchema', async () => {
    const { api_key } = await sf.mintKey();
    const anonymous = await sf.api('GET', '/api/v1/indicator-schema');
    const keyed = await sf.api('GET', '/api/v1/indicator-schema', { key: api_key });
    assert.equal(keyed.status, 200);
    assert.deepEqual(keyed.body, anonymous.body);
    const spec = (await sf.api('GET', '/openapi.json')).body;
    const op = spec.paths['/api/v1/indicator-schema'].get;
    assert.equal(op.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/IndicatorSchema');
    assert.equal(op.security, undefined, 'public route');
  });
});
