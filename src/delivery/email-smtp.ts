import nodemailer, { type Transporter } from 'nodemailer';
import type { ComposedMail } from './email-message.ts';

/** What one SMTP send came to: sent, or why not and whether a later try may succeed. */
export type SmtpOutcome =
  | { ok: true; response: string }
  | {
      ok: false;
      /** 5xx: the server refused this message for good (a retry would get the same answer). */
      permanent: boolean;
      /** The SMTP reply code; null when there was none (no connection, a timeout). */
      code: number | null;
      error: string;
    };

export interface OutgoingMail extends ComposedMail {
  to: string;
  /** Extra header lines (List-Unsubscribe, List-Unsubscribe-Post). */
  headers?: Record<string, string>;
  /** `<…@…>`: the Message-ID (else nodemailer makes one). */
  messageId?: string;
}

/** Where SMTP_URL points, without its user and password (for logs and messages). */
export function smtpTarget(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'SMTP_URL (unreadable)';
  }
}

/** A user and password of SMTP_URL never leave in an error text. */
const scrub = (text: string, smtpUrl: string): string => {
  let out = text;
  try {
    const url = new URL(smtpUrl);
    for (const secret of [url.password, decodeURIComponent(url.password)]) if (secret.length >= 3) out = out.split(secret).join('…');
  } catch {
    // An unreadable URL has no secret to find in the text.
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, 300);
};

/**
 * Sends mail through the SMTP server of SMTP_URL (nodemailer, pooled connections). A reply in the
 * 4xx range or no reply at all is worth another try; a 5xx one is final for that message. An
 * authentication failure is the operator's to fix, so it is retried too.
 */
export class SmtpMailer {
  private readonly transport: Transporter;

  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
    timeoutMs: number,
  ) {
    // Pooled: a bar's signals reuse a few open connections instead of one handshake each.
    this.transport = nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: 5,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      logger: false,
      debug: false,
    } as Parameters<typeof nodemailer.createTransport>[0]);
  }

  get target(): string {
    return smtpTarget(this.smtpUrl);
  }

  async send(mail: OutgoingMail): Promise<SmtpOutcome> {
    try {
      const info = await this.transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(mail.headers ? { headers: mail.headers } : {}),
        ...(mail.messageId ? { messageId: mail.messageId } : {}),
      });
      return { ok: true, response: String(info.response ?? '') };
    } catch (err) {
      const e = err as Error & { responseCode?: number; code?: string };
      const code = typeof e.responseCode === 'number' ? e.responseCode : null;
      const permanent = code !== null && code >= 500 && code < 600 && e.code !== 'EAUTH';
      const said = code !== null ? `SMTP ${code}: ${e.message}` : `SMTP ${e.code ? `${e.code}: ` : ''}${e.message}`;
      return { ok: false, permanent, code, error: scrub(said, this.smtpUrl) };
    }
  }

  close(): void {
    this.transport.close();
  }
}
