import assert from 'node:assert/strict';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * The web app as the edge serves it: pages under a strict CSP with no inline script, a minified
 * bundle under hashed names cached for a year and sent compressed, user text escaped.
 */

const PAGES = [
  '/',
  '/quick-deploy',
  '/market',
  '/account',
  '/sign-in',
  '/recover',
  '/account/claim',
  '/account/sessions',
  '/models/1_EURUSD_15min_Model%201',
  '/models/1_EURUSD_15min_Model%201/optimize',
  '/community',
  '/community/1',
  '/pulse',
];

/** Every <script> tag of a page: its src, or null for an inline one. */
const scriptsOf = (page: string) =>
  [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].map((m) => ({
    src: /\bsrc="([^"]+)"/.exec(m[1]!)?.[1] ?? null,
    body: m[2]!,
  }));

describe('the web app pages and assets', () => {
  let sf: TestService;
  before(async () => {
    sf = await startTestService();
  });
  after(() => sf.stop());

  it('serves every page as HTML under a CSP that forbids inline script, eval and framing', async () => {
    for (const path of PAGES) {
      const res = await fetch(sf.url + path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      const csp = res.headers.get('content-security-policy') ?? '';
      const directives = new Map(
        csp
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [name!, values]),
      );
      assert.deepEqual(
        directives.get('script-src'),
        ["'self'"],
        `${path}: scripts only from this origin (no 'unsafe-inline', no 'unsafe-eval')`,
      );
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], path);
      assert.deepEqual(directives.get('object-src'), ["'none'"], path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      const page = await res.text();
      const scripts = scriptsOf(page);
      assert.ok(scripts.length > 0, `${path} loads a script`);
      for (const s of scripts) {
        assert.ok(s.src && s.src.startsWith('/assets/'), `${path}: every script is a file of this service (${s.src})`);
        assert.equal(s.body.trim(), '', `${path}: no inline script`);
      }
      assert.doesNotMatch(page, /\son[a-z]+\s*=/i, `${path}: no inline event handler`);
    }
  });

  it('serves the bundle minified under hashed names, cached for a year, compressed for browsers that accept it', async () => {
    const page = await (await fetch(`${sf.url}/`)).text();
    const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(', '));
    for (const asset of assets) {
      assert.match(asset, /-[A-Z0-9]{8}\.(js|css)$/, `${asset}: the name carries a content hash`);
      const plain = await fetch(sf.url + asset, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.status, 200, asset);
      assert.match(plain.headers.get('cache-control') ?? '', /max-age=31536000/, asset);
      assert.match(plain.headers.get('cache-control') ?? '', /immutable/, asset);
      assert.equal(plain.headers.get('x-content-type-options'), 'nosniff');
      assert.match(plain.headers.get('content-type') ?? '', asset.endsWith('.js') ? /javascript/ : /^text\/css/);
      const body = Buffer.from(await plain.arrayBuffer());
      // Minified: long lines (esbuild keeps a string's "\n" as a real newline in a template literal, so lines are not counted).
      const lines = body.toString().split('\n').length;
      if (asset.endsWith('.js')) assert.ok(body.length / lines > 1000, `${asset} is minified (${lines} lines, ${body.length} bytes)`);
      // fetch() would decode transparently; ask with node's raw bytes instead.
      for (const [encoding, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        const res = await rawGet(sf.url + asset, encoding);
        assert.equal(res.encoding, encoding, `${asset} is sent ${encoding}`);
        assert.ok(res.body.length < body.length, `${asset}: ${encoding} is smaller`);
        assert.deepEqual(decode(res.body), body, `${asset}: ${encoding} decodes to the file`);
      }
    }
    const missing = await fetch(`${sf.url}/assets/nope-ABCDEFGH.js`);
    assert.equal(missing.status, 404);
  });

  it('pre-fills the quick-deploy prompt as text: markup in it is escaped, never parsed', async () => {
    const prompt = 'EMA cross </textarea><script>alert("x")</script> & more';
    const res = await fetch(`${sf.url}/quick-deploy?prompt=${encodeURIComponent(prompt)}&run=1`);
    const page = await res.text();
    const textarea = /<textarea[^>]*>([\s\S]*?)<\/textarea>/.exec(page)?.[1];
    assert.equal(textarea, 'EMA cross &lt;/textarea&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
    assert.equal(scriptsOf(page).filter((s) => !s.src).length, 0, 'no script came from the prompt');
  });

  it('renders /pulse readable without JavaScript: the newest events, newest first', async () => {
    const key = await sf.mintKey();
    const code = await sf.api('POST', '/api/v1/generate', { key: key.api_key, body: { description: 'EURUSD 1min RSI mean reversion' } });
    assert.equal(code.status, 200, code.text);
    const train = await sf.api('POST', '/api/v1/train', {
      key: key.api_key,
      body: { code: code.body.code, timeframe: '1min', symbol: 'EURUSD' },
    });
    assert.equal(train.status, 200, train.text);
    for (let i = 0; i < 600; i++) {
      const job = await sf.api('GET', `/api/v1/train/${train.body.job_id}`, { key: key.api_key });
      if (job.body.status === 'done' || job.body.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const events = (await sf.api('GET', '/api/v1/activity?limit=50')).body.events as { id: number; kind: string; bot: string }[];
    assert.ok(events.length >= 1, 'training made public events');
    const page = await (await fetch(`${sf.url}/pulse`)).text();
    const items = [
      ...page.matchAll(
        /<li class="event [^"]*" data-id="(\d+)">[\s\S]*?<span class="kind">([A-Z_]+)<\/span>\s*<span class="bot">([^<]*)<\/span>/g,
      ),
    ].map((m) => ({ id: Number(m[1]), kind: m[2], bot: m[3] }));
    assert.deepEqual(
      items,
      events.map(({ id, kind, bot }) => ({ id, kind, bot })),
    );
    assert.match(page, new RegExp(`data-newest="${events[0]!.id}"`));
  });
});

/** GET with an Accept-Encoding, returning the undecoded body. */
async function rawGet(url: string, encoding: string): Promise<{ encoding: string | undefined; body: Buffer }> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
