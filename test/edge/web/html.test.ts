import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, html } from '../../../src/edge/web/html.ts';
import { pulseItem } from '../../../src/edge/web/pulse-page.ts';

describe('server-rendered HTML', () => {
  it('escapes the five HTML-significant characters', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('escapes every interpolated value of an html`` template, keeping nested templates as markup', () => {
    const inner = html`<b>${'<i>'}</b>`;
    assert.equal(html`<p title="${'"x"'}">${inner}${['<', 1]}</p>`.value, '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>&lt;1</p>');
  });

  it('shows an activity event’s user text as text', () => {
    const item = pulseItem({
      id: 7,
      ts: '2026-01-05T12:00:00.000000Z',
      kind: 'TRAINED',
      bot: '<script>x</script>',
      model: { name: '<img src=x onerror=alert(1)>', symbol: 'EURUSD', timeframe: '15min' },
      metrics: { n: 3, wr: 0.5, ret: 0.012, pf: 1.5 },
    }).value;
    assert.ok(!item.includes('<script>') && !item.includes('<img'), item);
    assert.ok(item.includes('&lt;script&gt;x&lt;/script&gt;'));
    assert.ok(item.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(item.includes('3 trades · win 50.0% · return 1.2% · PF 1.50'));
  });
});
