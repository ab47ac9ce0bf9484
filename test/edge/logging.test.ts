import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('logs', () => {
  let sf: TestService;
  const lines: string[] = [];

  before(async () => {
    sf = await startTestService({ LOG_LEVEL: 'trace' }, { logSink: (line) => lines.push(line) });
  });
  after(() => sf.stop());

  it('are structured JSON, one access line per request', async () => {
    await sf.api('GET', '/_healthz');
    const access = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === 'request' && e.url === '/_healthz');
    assert.equal(access.length, 1);
    assert.equal(access[0].status, 200);
    assert.equal(typeof access[0].ms, 'number');
  });

  it('never contain an API key, a session token or a cookie', async () => {
    const mint = await fetch(`${sf.url}/api/v1/key/trial`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"username":"secretive"}',
    });
    const { api_key: key } = (await mint.json()) as { api_key: string };
    const cookie = mint.headers.get('set-cookie')!.split(';')[0]!;
    const session = cookie.split('=')[1]!;
    await sf.api('GET', '/api/v1/whoami-key', { key });
    await sf.api('GET', '/api/v1/whoami-key', { headers: { cookie } });
    const rotated = await sf.api('POST', '/api/v1/key/generate', { key });
    await sf.api('GET', '/api/v1/caps', { key: 'sf_' + 'x'.repeat(40) }); // a rejected key is not logged either
    await sf.api('GET', '/api/v1/caps', { key: rotated.body.api_key });

    const text = lines.join('\n');
    assert.ok(lines.length > 5);
    for (const secret of [key, rotated.body.api_key, session, 'sf_' + 'x'.repeat(40)]) {
      assert.equal(text.includes(secret), false, `a secret reached the log: ${secret.slice(0, 6)}…`);
    }
  });
});
