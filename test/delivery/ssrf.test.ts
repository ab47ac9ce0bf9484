import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressRefusal, checkWebhookTarget, classifyAddress, parseWebhookUrl, type HostLookup } from '../../src/delivery/index.ts';
import { WebhookTargetError } from '../../src/errors.ts';
import { webhookTargetChecker } from '../../src/delivery/index.ts';

/** A resolver with fixed answers, standing in for DNS (each name → its addresses). */
const fakeDns =
  (table: Record<string, string[]>): HostLookup =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const dns = fakeDns({
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'loop.example': ['127.0.0.1'],
  'ten.example': ['10.1.2.3'],
  'meta.example': ['169.254.169.254'],
  'v6loop.example': ['::1'],
  'ula.example': ['fc00::5'],
  'mixed.example': ['93.184.216.34', '192.168.1.10'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'cgnat.example': ['100.64.1.1'],
  'v6ll.example': ['fe80::1'],
});

const refused = async (url: string, pattern: RegExp, allowPrivate: 'none' | 'loopback' | 'all' = 'none') => {
  await assert.rejects(checkWebhookTarget(url, { lookup: dns, allowPrivate }), (err: unknown) => {
    assert.ok(err instanceof WebhookTargetError, `not a WebhookTargetError: ${String(err)}`);
    assert.equal(err.status, 400);
    assert.match(err.message, pattern);
    return true;
  });
};

describe('SSRF: address classes', () => {
  it('tells public from non-public addresses, v4 and v6', () => {
    const cases: Array<[string, string | null]> = [
      ['8.8.8.8', null],
      ['93.184.216.34', null],
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.0.0.1', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.1', null],
      ['192.168.0.1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['100.64.0.1', 'carrier-grade NAT (CGNAT)'],
      ['100.127.255.255', 'carrier-grade NAT (CGNAT)'],
      ['100.128.0.1', null],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.251', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['198.18.0.1', 'reserved (benchmarking)'],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['fc00::1', 'unique local (ULA)'],
      ['fd00:abcd::1', 'unique local (ULA)'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'reserved (documentation)'],
      ['2606:4700:4700::1111', null],
    ];
    for (const [ip, kind] of cases) assert.equal(classifyAddress(ip).kind, kind, ip);
  });

  it('judges IPv4 carried in IPv6 by the IPv4 address', () => {
    assert.deepEqual(classifyAddress('::ffff:127.0.0.1'), { kind: 'loopback', embedded: '127.0.0.1' });
    assert.deepEqual(classifyAddress('::ffff:7f00:1'), { kind: 'loopback', embedded: '127.0.0.1' });
    assert.deepEqual(classifyAddress('::ffff:a9fe:a9fe'), { kind: 'link-local', embedded: '169.254.169.254' });
    assert.deepEqual(classifyAddress('::ffff:8.8.8.8'), { kind: null, embedded: '8.8.8.8' });
    assert.equal(classifyAddress('64:ff9b::10.0.0.1').kind, 'private');
    assert.equal(classifyAddress('2002:c0a8:0101::1').kind, 'private', '6to4 of 192.168.1.1');
    assert.equal(classifyAddress('::10.0.0.1').kind, 'private', 'IPv4-compatible');
  });

  it('applies the policy: loopback lets only loopback through, all lets everything through', () => {
    assert.equal(addressRefusal('127.0.0.1', 'loopback'), null);
    assert.equal(addressRefusal('::1', 'loopback'), null);
    assert.equal(addressRefusal('::ffff:127.0.0.1', 'loopback'), null);
    assert.equal(addressRefusal('10.0.0.1', 'loopback'), 'private');
    assert.equal(addressRefusal('10.0.0.1', 'all'), null);
    assert.equal(addressRefusal('127.0.0.1', 'none'), 'loopback');
  });
});

describe('SSRF: checkWebhookTarget', () => {
  it('accepts a public https target and returns every checked address', async () => {
    const target = await checkWebhookTarget('https://public.example/hooks?x=1', { lookup: dns });
    assert.equal(target.host, 'public.example');
    assert.deepEqual(
      target.addresses.map((a) => a.address),
      ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    );
  });

  it('refuses names resolving to loopback, private, link-local, CGNAT, ULA and IPv6 loopback/link-local', async () => {
    await refused('http://loop.example/', /resolves to 127\.0\.0\.1, which is a loopback address/);
    await refused('http://ten.example/', /resolves to 10\.1\.2\.3, which is a private address/);
    await refused('http://meta.example/latest/meta-data', /169\.254\.169\.254.*link-local/);
    await refused('http://v6loop.example/', /::1.*loopback/);
    await refused('http://ula.example/', /fc00::5.*unique local/);
    await refused('http://cgnat.example/', /CGNAT/);
    await refused('http://v6ll.example/', /link-local/);
    await refused('http://mapped.example/', /private \(10\.0\.0\.1 inside ::ffff:10\.0\.0\.1\)/);
  });

  it('refuses a name when any one of its addresses is private', async () => {
    await refused('https://mixed.example/', /192\.168\.1\.10, which is a private address/);
  });

  it('refuses IP literals, whatever their spelling (decimal, octal, hex, short, bracketed, mapped)', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.0.0.1/',
      'http://017700000001/',
      'http://127.1/',
      'http://0/',
      'http://[::1]:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://[0:0:0:0:0:ffff:7f00:1]/',
      'http://10.0.0.1/',
      'http://012.0.0.1/',
      'http://167772161/',
      'http://[fd00::1]/',
      'http://169.254.169.254/',
    ]) {
      await refused(url, /is a .* address: webhook targets must be public/);
    }
  });

  it('lets loopback through under the loopback policy, but nothing else private', async () => {
    const target = await checkWebhookTarget('http://loop.example:9999/x', { lookup: dns, allowPrivate: 'loopback' });
    assert.deepEqual(target.addresses, [{ address: '127.0.0.1', family: 4 }]);
    await checkWebhookTarget('http://[::1]:9999/x', { allowPrivate: 'loopback' });
    await checkWebhookTarget('http://2130706433:9999/', { allowPrivate: 'loopback' });
    await refused('http://ten.example/', /private/, 'loopback');
    await refused('http://meta.example/', /link-local/, 'loopback');
  });

  it('allows everything under the all policy', async () => {
    await checkWebhookTarget('http://ten.example/', { lookup: dns, allowPrivate: 'all' });
  });

  it('refuses other schemes, names that do not resolve, and garbage', async () => {
    await refused('ftp://public.example/', /http or https/);
    await refused('file:///etc/passwd', /http or https/);
    await refused('http://nowhere.example/', /does not resolve \(ENOTFOUND\)/);
    await refused('not a url', /not a valid URL/);
  });

  it('refuses malformed URLs with the reason: broken percent-escapes, user info that is not UTF-8, whitespace', async () => {
    await refused('http://%E0@public.example/hook', /user name whose percent-escapes are not valid UTF-8/);
    await refused('http://user:%C0%AE@public.example/hook', /password whose percent-escapes are not valid UTF-8/);
    await refused('http://public.example/a%zzb', /malformed percent-escape/);
    await refused('http://public.example/a%4', /malformed percent-escape/);
    await refused('http://public.example/a b', /whitespace/);
    assert.throws(() => parseWebhookUrl('http://%E0@public.example/'), WebhookTargetError);
  });

  it('returns the normal form of the URL (what the deploy stores)', async () => {
    const target = await checkWebhookTarget('HTTPS://Public.EXAMPLE:443/hooks/../in?x=%41', { lookup: dns });
    assert.equal(target.normalized, 'https://public.example/in?x=%41');
    assert.equal(await webhookTargetChecker({ WEBHOOK_ALLOW_PRIVATE: 'loopback' })('http://127.0.0.1:80/x'), 'http://127.0.0.1/x');
  });

  it('uses the system resolver by default: localhost is refused', async () => {
    await assert.rejects(checkWebhookTarget('http://localhost:8080/'), /loopback address/);
  });

  it('binds the configured policy for the deploy API', async () => {
    await assert.rejects(webhookTargetChecker({ WEBHOOK_ALLOW_PRIVATE: 'none' })('http://127.0.0.1/'), WebhookTargetError);
    await webhookTargetChecker({ WEBHOOK_ALLOW_PRIVATE: 'loopback' })('http://127.0.0.1/');
  });
});
