import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { WebhookTargetError } from '../errors.ts';

/**
 * Server-side request forgery guard for webhook targets. A target is refused when its host is,
 * or resolves (every address) to, an address that is not publicly routable: private, loopback,
 * link-local, CGNAT, multicast, unspecified, reserved/documentation, IPv6 ULA or site-local,
 * and IPv4 addresses carried inside IPv6 (mapped, compatible, NAT64, 6to4) by what they carry.
 * The URL parser has already turned decimal, octal and hex IPv4 forms into dotted quads.
 */

/** none = public addresses only; loopback = also 127.0.0.0/8 and ::1 (tests); all = anything. */
export type PrivateTargetPolicy = 'none' | 'loopback' | 'all';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver by default). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: HostLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface CheckedTarget {
  url: URL;
  /** The URL in its normal form (`url.href`): what is stored and called. */
  normalized: string;
  /** The host without IPv6 brackets, as sockets and TLS want it. */
  host: string;
  /** Every address the host resolved to; all of them passed the check. Connect to one of these. */
  addresses: ResolvedAddress[];
}

export interface TargetCheckOptions {
  allowPrivate?: PrivateTargetPolicy;
  lookup?: HostLookup;
}

type Range = [base: bigint, bits: number, kind: string];

const v4 = (a: number, b: number, c: number, d: number): bigint => BigInt(((a << 24) >>> 0) + (b << 16) + (c << 8) + d);

const V4_RANGES: Range[] = [
  [v4(0, 0, 0, 0), 8, 'unspecified'],
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'carrier-grade NAT (CGNAT)'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'],
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'reserved'],
  [v4(192, 0, 2, 0), 24, 'reserved (documentation)'],
  [v4(192, 88, 99, 0), 24, 'reserved'],
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'reserved (benchmarking)'],
  [v4(198, 51, 100, 0), 24, 'reserved (documentation)'],
  [v4(203, 0, 113, 0), 24, 'reserved (documentation)'],
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
];

const h = (text: string): bigint => BigInt(`0x${text}`);
const V6_RANGES: Range[] = [
  [0n, 128, 'unspecified'],
  [1n, 128, 'loopback'],
  [h('0100') << 112n, 64, 'reserved (discard)'],
  [h('20010db8') << 96n, 32, 'reserved (documentation)'],
  [h('20010000') << 96n, 32, 'reserved (Teredo)'],
  [h('0064ff9b0001') << 80n, 48, 'reserved (local NAT64)'],
  [h('fc') << 120n, 7, 'unique local (ULA)'],
  [h('fe80') << 112n, 10, 'link-local'],
  [h('fec0') << 112n, 10, 'site-local'],
  [h('ff') << 120n, 8, 'multicast'],
];

const inRange = (value: bigint, width: number, [base, bits]: Range): boolean => {
  const shift = BigInt(width - bits);
  return value >> shift === base >> shift;
};

function parseV4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  const [a, b, c, d] = parts.map(Number) as [number, number, number, number];
  return v4(a, b, c, d);
}

function parseV6(text: string): bigint | null {
  let s = text.replace(/^\[|\]$/g, '');
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (isIP(s) !== 6) return null;
  // A trailing dotted quad counts as the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const tail = parseV4(dotted[1]!);
    if (tail === null) return null;
    s = `${s.slice(0, dotted.index)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function formatV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => Number((value >> s) & 0xffn)).join('.');
}

export interface AddressClass {
  /** null when the address is publicly routable. */
  kind: string | null;
  /** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), when it was judged by it. */
  embedded?: string;
}

/** Tells what kind of non-public address `ip` is (null kind = public). Throws on a non-IP string. */
export function classifyAddress(ip: string): AddressClass {
  const four = parseV4(ip);
  if (four !== null) return { kind: V4_RANGES.find((r) => inRange(four, 32, r))?.[2] ?? null };
  const six = parseV6(ip);
  if (six === null) throw new Error(`not an IP address: ${ip}`);
  const embeddedBy = (value: bigint): AddressClass => {
    const embedded = formatV4(value);
    return { kind: classifyAddress(embedded).kind, embedded };
  };
  if (six >> 32n === 0xffffn) return embeddedBy(six & 0xffffffffn); // ::ffff:a.b.c.d (mapped)
  if (six >> 32n === 0xffff0000n) return embeddedBy(six & 0xffffffffn); // ::ffff:0:a.b.c.d (translated)
  if (six > 1n && six >> 32n === 0n) return embeddedBy(six); // ::a.b.c.d (compatible, deprecated)
  if (six >> 32n === h('0064ff9b0000000000000000')) return embeddedBy(six & 0xffffffffn); // NAT64 well-known prefix
  if (six >> 112n === 0x2002n) return embeddedBy((six >> 80n) & 0xffffffffn); // 6to4
  return { kind: V6_RANGES.find((r) => inRange(six, 128, r))?.[2] ?? null };
}

/** Whether the policy lets the service connect to `ip`; the reason when it does not. */
export function addressRefusal(ip: string, policy: PrivateTargetPolicy): string | null {
  if (policy === 'all') return null;
  const { kind, embedded } = classifyAddress(ip);
  if (kind === null) return null;
  if (kind === 'loopback' && policy === 'loopback') return null;
  return embedded ? `${kind} (${embedded} inside ${ip})` : kind;
}

/**
 * Checks a webhook URL: http(s) only, a host, and every address it resolves to allowed by the
 * policy. Returns the addresses so the caller connects to a checked one (no second lookup an
 * attacker's DNS could answer differently). Throws WebhookTargetError with a clear message.
 */
export async function checkWebhookTarget(raw: string, options: TargetCheckOptions = {}): Promise<CheckedTarget> {
  const policy = options.allowPrivate ?? 'none';
  const url = parseWebhookUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new WebhookTargetError(`webhook_url host "${host}" does not resolve${code ? ` (${code})` : ''}`);
    }
    if (addresses.length === 0) throw new WebhookTargetError(`webhook_url host "${host}" does not resolve`);
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) {
      const via = literal ? '' : ` resolves to ${address}, which`;
      throw new WebhookTargetError(
        `webhook_url host "${host}"${via} is a ${refusal} address: webhook targets must be public internet addresses`,
      );
    }
  }
  return { url, normalized: url.href, host, addresses };
}

/** Percent-escapes must be `%` and two hex digits. */
const BAD_ESCAPE = /%(?![0-9a-f]{2})/i;

/**
 * Parses a webhook URL strictly (WHATWG URL, then our own rules): http or https, a host, no
 * broken percent-escapes anywhere, and user info that decodes as UTF-8 (it becomes the Basic
 * auth header). Throws WebhookTargetError naming what is wrong; `href` of the result is the
 * normal form (lower-case scheme and host, punycode, default port dropped).
 */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError('webhook_url is not a valid URL');
  }
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) throw new WebhookTargetError('webhook_url contains whitespace or control characters');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookTargetError('webhook_url must use http or https');
  if (!url.hostname) throw new WebhookTargetError('webhook_url has no host');
  if (BAD_ESCAPE.test(raw))
    throw new WebhookTargetError('webhook_url has a malformed percent-escape (a % must be followed by two hex digits)');
  for (const [part, value] of [
    ['user name', url.username],
    ['password', url.password],
  ] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      throw new WebhookTargetError(`webhook_url has a ${part} whose percent-escapes are not valid UTF-8 (${value})`);
    }
  }
  return url;
}
