/**
 * Community Pine scripts pasted into POST /api/v1/indicators/custom over real HTTP, as an outside
 * reviewer would: every script of the community corpus answers 200 with each of its plots, a
 * script pasted with CRLF endings, a byte-order mark, tabs and no-break spaces answers exactly
 * what the clean script answers, and what cannot run (empty, no declaration, no output,
 * typographic quotes, position reads with price orders) is a 422 at its line:column, refunded —
 * never a 500 (an empty `source` is the schema's 400).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { COMMUNITY } from '../pine/community.ts';

interface Series {
  title: string;
  values: (number | null)[];
}

describe('community Pine scripts over HTTP', () => {
  let sf: TestService;
  let key: string;
  const post = (source: string) => sf.api('POST', '/api/v1/indicators/custom', { key, body: { source, limit: 300, fe_mode: 'none' } });
  const balance = async () => (await sf.api('GET', '/api/v1/key/usage', { key })).body.balance as number;
  const seriesOf = (body: { overlays: Series[]; panels: { series: Series[] }[] }): Series[] => [
    ...body.overlays,
    ...body.panels.flatMap((p) => p.series),
  ];

  before(async () => {
    sf = await startTestService({ HISTORY_DAYS: '10' });
    key = (await sf.mintKey()).api_key;
  });
  after(() => sf.stop());

  it('runs every community script: 200, each titled plot answered, 1 credit each', async () => {
    for (const c of COMMUNITY) {
      const before = await balance();
      const res = await post(c.pine);
      assert.equal(res.status, 200, `${c.name}: ${res.text}`);
      const titles = seriesOf(res.body).map((s) => s.title);
      for (const title of [...c.py.matchAll(/out\['([^']+)'\]/g)].map((m) => m[1]!))
        assert.ok(titles.includes(title), `${c.name}: no plot ${title} in ${titles.join(', ')}`);
      for (const s of seriesOf(res.body)) assert.equal(s.values.length, 300, `${c.name}: ${s.title}`);
      assert.equal(await balance(), before - 1, c.name);
    }
  });

  it('answers a script pasted with CRLF, a byte-order mark, tabs and no-break spaces exactly as the clean one', async () => {
    const clean = COMMUNITY.find((c) => c.name.startsWith('Hull Suite'))!.pine;
    const pasted = `\uFEFF${clean.replace(/ {4}/g, '\t').replace(/, /g, ',\u00a0').replace(/\n/g, '  \r\n')}`;
    const [a, b] = [await post(clean), await post(pasted)];
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual(seriesOf(b.body), seriesOf(a.body));
    assert.deepEqual(b.body.signals, a.body.signals);
  });

  it('answers what cannot run 422 at its line:column with what to do, refunded, never 500', async () => {
    const before = await balance();
    // An empty body field is the schema's 400; comments alone are no Pine (nor a description the writer knows): 422.
    const empty = await post('');
    assert.equal(empty.status, 400, empty.text);
    const comments = await post('// my indicator\n// nothing else yet\n');
    assert.equal(comments.status, 422, comments.text);
    const cases: [string, number, number, RegExp][] = [
      ['//@version=5\n// only comments after the version\n', 1, 1, /script is empty/],
      ['//@version=5\nplot(close)', 1, 1, /indicator\(\), strategy\(\) or library\(\)/],
      ['//@version=5\nindicator("x")\nx = ta.sma(close, 5)', 1, 1, /no output/],
      ['//@version=5\nindicator(“x”)\nplot(close)', 2, 11, /straight quotes/],
      [
        '//@version=5\nstrategy("s")\nif strategy.position_size == 0\n    strategy.entry("L", strategy.long)\nstrategy.exit("X", "L", stop=close * 0.99)',
        3,
        4,
        /not simulated/,
      ],
    ];
    for (const [source, line, column, message] of cases) {
      const res = await post(source);
      assert.equal(res.status, 422, `${JSON.stringify(source)}: ${res.text}`);
      assert.equal(`${res.body.line}:${res.body.column}`, `${line}:${column}`, res.body.error);
      assert.match(res.body.error, message);
    }
    assert.equal(await balance(), before);
  });
});
