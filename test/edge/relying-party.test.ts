/**
 * The WebAuthn relying party of a request (src/edge/relying-party.ts): PUBLIC_URL when set,
 * whatever the Host says; otherwise the request's own host and scheme, forwarded headers counting
 * only behind TRUST_PROXY.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { relyingParty } from '../../src/edge/relying-party.ts';

async function rpOf(trustProxy: boolean, publicUrl: string | undefined, headers: Record<string, string>) {
  const app = Fastify({ trustProxy });
  app.get('/', async (request) => relyingParty(request, publicUrl));
  const res = await app.inject({ method: 'GET', url: '/', headers });
  await app.close();
  return res.json();
}

describe('relyingParty', () => {
  it('is PUBLIC_URL’s host and origin when set, whatever the request says', async () => {
    assert.deepEqual(await rpOf(true, 'https://signals.example.com/app', { host: 'evil.example', 'x-forwarded-host': 'evil.example' }), {
      id: 'signals.example.com',
      origin: 'https://signals.example.com',
    });
  });

  it('is the request’s host (without port for the id) and scheme otherwise', async () => {
    assert.deepEqual(await rpOf(false, undefined, { host: 'localhost:8080' }), { id: 'localhost', origin: 'http://localhost:8080' });
  });

  it('follows X-Forwarded-Host and -Proto only behind TRUST_PROXY', async () => {
    const forwarded = { host: 'internal:3000', 'x-forwarded-host': 'signals.example.org', 'x-forwarded-proto': 'https' };
    assert.deepEqual(await rpOf(true, undefined, forwarded), { id: 'signals.example.org', origin: 'https://signals.example.org' });
    assert.deepEqual(await rpOf(false, undefined, forwarded), { id: 'internal', origin: 'http://internal:3000' });
  });
});
