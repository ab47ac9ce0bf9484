/**
 * A real SMTP server in the test process (`smtp-server`): it takes mail as any relay does and
 * keeps each message, its headers and its text and HTML parts decoded (quoted-printable, base64,
 * RFC 2047 encoded words), so tests read what a mailbox would show. It can refuse the next
 * messages with a reply code of the test's choosing (4xx: try again later; 5xx: never).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Header names in lower case; folded lines unfolded, encoded words decoded. */
  headers: Record<string, string>;
  subject: string;
  text: string | null;
  html: string | null;
  raw: string;
}

export interface SmtpStandIn {
  /** smtp://user:password@127.0.0.1:<port> */
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Every MAIL transaction's outcome, in order: the reply code given at the end of DATA. */
  replies: Array<{ to: string[]; code: number }>;
  /** The next `times` messages get this reply at the end of DATA (e.g. 451, 550). */
  refuseNext(code: number, times?: number): void;
  /** Takes back the refusals not used yet: the next message is accepted. */
  acceptAgain(): void;
  /** Messages to this address. */
  to(address: string): ReceivedMail[];
  stop(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const joined = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), adjacent ones joined. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, body: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(body, 'base64').toString('utf8') : decodeQuotedPrintable(body.replace(/_/g, ' ')),
    );
}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = decodeWords(line.slice(at + 1).trim());
  }
  return headers;
}

function splitHead(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  if (at < 0) return { headers: parseHeaders(raw), body: '' };
  return { headers: parseHeaders(raw.slice(0, at)), body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '7bit').toLowerCase();
  if (e === 'quoted-printable') return decodeQuotedPrintable(body);
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** The text/plain and text/html parts of a message (nested multiparts included). */
function parts(headers: Record<string, string>, body: string, out: { text: string | null; html: string | null }): void {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHead(chunk.replace(/^\r?\n/, ''));
      parts(part.headers, part.body.replace(/\r?\n$/, ''), out);
    }
    return;
  }
  const decoded = decodeBody(body, headers['content-transfer-encoding']).replace(/\r\n/g, '\n');
  if (/^text\/html/i.test(type)) out.html ??= decoded;
  else if (/^text\/plain/i.test(type)) out.text ??= decoded;
}

export function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const { headers, body } = splitHead(raw);
  const out = { text: null as string | null, html: null as string | null };
  parts(headers, body, out);
  return { from, to, headers, subject: headers.subject ?? '', ...out, raw };
}

export async function startSmtpStandIn(options: { user?: string; password?: string } = {}): Promise<SmtpStandIn> {
  const user = options.user ?? 'relay-user';
  const password = options.password ?? 'relay-pass-s3cret';
  const received: ReceivedMail[] = [];
  const replies: SmtpStandIn['replies'] = [];
  const refusals: number[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(Object.assign(new Error('authentication failed'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        const refusal = refusals.shift();
        if (refusal !== undefined) {
          replies.push({ to, code: refusal });
          return callback(
            Object.assign(new Error(refusal < 500 ? 'mailbox busy, try again later' : 'mailbox unavailable'), { responseCode: refusal }),
          );
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        received.push(parseMail(Buffer.concat(chunks).toString('utf8'), from, to));
        replies.push({ to, code: 250 });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return {
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    port,
    received,
    replies,
    refuseNext(code, times = 1) {
      for (let i = 0; i < times; i++) refusals.push(code);
    },
    acceptAgain() {
      refusals.length = 0;
    },
    to: (address) => received.filter((m) => m.to.includes(address)),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
