/**
 * Strict request bodies (schemas/strict.ts): an unknown field is refused with 400 SF_UNKNOWN_FIELD
 * naming it and the field it likely meant — before anything is charged — except inside the
 * free-form `indicators` object; and every number in a request body is bounded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closestField, editDistance, unknownFieldsMessage } from '../../schemas/strict.ts';
import { GenerateRequest, PosRules } from '../../schemas/generation.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { startTestService, type ApiResponse, type TestService } from '../helpers/service.ts';

const CODE = 'def feature_engineering(df, close, open_, high, low):\n    return df\n';

describe('the nearest known field', () => {
  it('measures edit distance', () => {
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('symbol', 'symbol'), 0);
  });

  it('finds misspellings, other spellings and synonyms, and nothing for a stranger', () => {
    const generate = Object.keys(GenerateRequest.shape);
    assert.equal(closestField('prompt', generate), 'description');
    assert.equal(closestField('descripton', generate), 'description');
    assert.equal(closestField('timeFrame', generate), 'timeframe');
    assert.equal(closestField('pair', generate), 'symbol');
    assert.equal(closestField('posRules', generate), 'pos_rules');
    assert.equal(closestField('zzzzzzzz', generate), null);
    const train = Object.keys(TrainRequest.shape);
    assert.equal(closestField('tp', train), 'take_profit');
    assert.equal(closestField('takeProfit', train), 'take_profit');
    assert.equal(closestField('model', train), 'model_name');
    assert.equal(closestField('description', ['prompt', 'code']), 'prompt');
  });

  it('words the message as the issue asks, listing the fields when nothing is close', () => {
    assert.equal(unknownFieldsMessage(['prompt'], Object.keys(GenerateRequest.shape)), 'unknown field prompt; did you mean description?');
    assert.equal(unknownFieldsMessage(['zzz'], ['a_field', 'b_field']), 'unknown field zzz; the fields are a_field, b_field');
    assert.equal(unknownFieldsMessage(['x'], []), 'unknown field x; this endpoint takes no fields');
  });

  it('is what the schemas say, nested objects included; indicators stay free-form', () => {
    const result = GenerateRequest.safeParse({
      prompt: 'rsi',
      pos_rules: { cooldwn: 2 },
      indicators: { my_own_key: 3, rsi_enabled: true },
    });
    assert.equal(result.success, false);
    const messages = result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).sort();
    assert.deepEqual(messages, [
      ': unknown field prompt; did you mean description?',
      'pos_rules: unknown field cooldwn; did you mean cooldown?',
    ]);
    assert.equal(PosRules.safeParse({ cooldown: 2 }).success, true);
    assert.equal(GenerateRequest.safeParse({ indicators: { anything_goes: 1 } }).success, true);
  });
});

describe('strict bodies and bounded numbers over HTTP', () => {
  let sf: TestService;
  let key: string;
  before(async () => {
    sf = await startTestService({ TRUST_PROXY: '1' });
    key = (await sf.mintKey()).api_key;
  });
  after(() => sf.stop());

  const balance = async (): Promise<number> => (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance;
  function assertUnknown(res: ApiResponse, text: string): void {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error_code, 'SF_UNKNOWN_FIELD', res.text);
    assert.ok(res.body.error.includes(text), res.body.error);
  }

  it('refuses /generate with prompt instead of description, and charges nothing', async () => {
    const before = await balance();
    const res = await sf.api('POST', '/api/v1/generate', { key, body: { prompt: 'buy when RSI is below 30' } });
    assertUnknown(res, 'unknown field prompt; did you mean description?');
    assert.equal(await balance(), before, 'no credit was spent');
  });

  it('refuses unknown fields on every JSON route, nested ones by their path', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      [
        'POST',
        '/api/v1/generate',
        { description: 'rsi', pos_rules: { cooldwn: 3 } },
        'pos_rules: unknown field cooldwn; did you mean cooldown?',
      ],
      ['POST', '/api/v1/generate/from-template', { template: 'scalper', pair: 'EURUSD' }, 'unknown field pair; did you mean symbol?'],
      ['POST', '/api/v1/generate/stream', { descripton: 'rsi' }, 'unknown field descripton; did you mean description?'],
      ['POST', '/api/v1/train', { code: CODE, tp: 20 }, 'unknown field tp; did you mean take_profit?'],
      ['POST', '/api/v1/predict', { model: 'x' }, 'unknown field model; did you mean model_name?'],
      ['POST', '/api/v1/deploy', { model_name: 'x', chanels: ['sse'] }, 'unknown field chanels; did you mean channels?'],
      ['POST', '/api/v1/one_shot', { description: 'rsi dip' }, 'unknown field description; did you mean prompt?'],
      ['POST', '/api/v1/one_shot', { prompt: 'rsi dip', deliver_to: { telegram: '1' } }, 'deliver_to: unknown field telegram'],
      ['POST', '/api/v1/indicators', { indicators: { rsi_enabled: true }, fromat: 'rows' }, 'unknown field fromat; did you mean format?'],
      ['POST', '/api/v1/key/generate', { force: true }, 'unknown field force; this endpoint takes no fields'],
    ];
    for (const [method, path, body, text] of cases) assertUnknown(await sf.api(method, path, { key, body }), text);
    assertUnknown(
      await sf.api('POST', '/api/v1/key/trial', { body: { usernme: 'abc' }, headers: { 'x-forwarded-for': '203.0.113.9' } }),
      'did you mean username?',
    );
  });

  it('accepts free-form keys inside indicators', async () => {
    const res = await sf.api('POST', '/api/v1/generate', {
      key,
      body: { description: 'rsi dip', indicators: { rsi_enabled: true, my_own_setting: 4 } },
    });
    assert.equal(res.status, 200, res.text);
  });

  it('bounds every number: 1e300 and other absurd values are 400 naming the field', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/api/v1/train', { code: CODE, take_profit: 1e300 }, /take_profit/],
      ['/api/v1/train', { code: CODE, stop_loss: 1e7 }, /stop_loss/],
      ['/api/v1/train', { code: CODE, risk_unit: 'pct', stop_loss: 5 }, /stop_loss: with risk_unit pct/],
      ['/api/v1/train', { code: CODE, capital: 1e300 }, /capital/],
      ['/api/v1/train', { code: CODE, train_split: 2 }, /train_split/],
      ['/api/v1/generate', { description: 'x', indicators: { rsi_period: 1e300 } }, /indicators/],
      ['/api/v1/generate', { description: 'x', pos_rules: { cooldown: 1e9 } }, /cooldown/],
    ];
    for (const [path, body, field] of cases) {
      const res = await sf.api('POST', path, { key, body });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error_code, 'SF_VALIDATION');
      assert.match(res.body.error, field);
    }
  });

  it('documents the bounds in /openapi.json', async () => {
    const spec = (await sf.api('GET', '/openapi.json')).body;
    const train = spec.components.schemas.TrainRequest;
    assert.equal(train.additionalProperties, false, 'strict: unknown fields are refused');
    const takeProfit =
      train.properties.take_profit.anyOf?.find((s: { type?: string }) => s.type === 'number') ?? train.properties.take_profit;
    assert.equal(takeProfit.maximum, 1_000_000);
  });
});
