import type { EmailAddresses } from '../../src/accounts/index.ts';
import { modelPageUrl, signalMail, type SmtpMailer } from '../../src/delivery/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import { nextUtcMidnight } from '../../src/lib/utc-day.ts';
import type { Logger } from '../../src/log.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import type { ChannelSender, SendOutcome } from './types.ts';

export interface EmailSenderOptions {
  mailer: Pick<SmtpMailer, 'send' | 'close'>;
  addresses: Pick<EmailAddresses, 'record' | 'unsubscribeToken' | 'takeSignal' | 'releaseSignal'>;
  /** Signal mails per account per UTC day (SIGNAL_EMAILS_PER_DAY). */
  dailyCap: number;
  /** Base of the links in mails (PUBLIC_URL); null = the one the address was registered through. */
  publicUrl: string | null;
  log: Logger;
  clock?: Clock;
}

/**
 * The email channel: each signal as one mail (plain text with an HTML alternative) to the
 * address the account confirmed, while it is still confirmed, with RFC 8058 one-click unsubscribe
 * headers. Counted against the account's daily cap before it goes (a mail that fails is given
 * back): over the cap it is not sent and becomes a capped dead letter at once. SMTP 4xx and
 * network failures are retried by the worker; a 5xx is final for that signal.
 */
export class EmailSender implements ChannelSender {
  readonly channel = 'email' as const;
  private readonly clock: Clock;

  constructor(private readonly options: EmailSenderOptions) {
    this.clock = options.clock ?? liveClock;
  }

  async send(event: SignalEvent, deployment: DeploymentRecord, abort?: AbortSignal, stopping?: AbortSignal): Promise<SendOutcome> {
    const to = deployment.email_to;
    if (!to) return { ok: false, status: null, error: 'the deployment has no email_to (deploy it again with the email channel)' };
    const record = await this.options.addresses.record(deployment.user_id);
    if (record?.confirmed?.address !== to) {
      const error =
        record?.unsubscribed?.address === to
          ? `${to} unsubscribed by its one-click link (confirm it again with POST /api/v1/email, then replay)`
          : `${to} is no longer this account's confirmed address (confirm it with POST /api/v1/email, then replay or deploy again)`;
      return { ok: false, gone: true, status: null, error };
    }
    if (abort?.aborted || stopping?.aborted) return { ok: false, status: null, error: 'the delivery of this deployment is stopping' };
    const now = this.clock.now();
    if (!(await this.options.addresses.takeSignal(deployment.user_id, this.options.dailyCap, now))) {
      return {
        ok: false,
        permanent: true,
        capped: true,
        status: null,
        error: `capped: this account reached its ${this.options.dailyCap} signal e-mails for the UTC day; not sent (replay it after ${new Date(nextUtcMidnight(now)).toISOString()})`,
      };
    }
    const base = (this.options.publicUrl ?? record.links_base).replace(/\/+$/, '');
    const unsubscribe = `${base}/api/v1/email/unsubscribe?token=${this.options.addresses.unsubscribeToken(deployment.user_id, to)}`;
    const mail = signalMail(event, { page: modelPageUrl(base, event), unsubscribe });
    const outcome = await this.options.mailer.send({
      ...mail,
      to,
      // The same Message-ID on every try: a mail client can tell a resent signal from a new one.
      messageId: `<${event.id}@signalforge>`,
      headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    if (outcome.ok) return { ok: true, status: 250 };
    await this.options.addresses
      .releaseSignal(deployment.user_id, now)
      .catch((err: unknown) =>
        this.options.log.warn(
          { user_id: deployment.user_id, error: (err as Error).message },
          'an unsent signal mail could not be given back to the daily count',
        ),
      );
    return { ok: false, status: outcome.code, error: outcome.error, ...(outcome.permanent ? { permanent: true } : {}) };
  }

  close(): void {
    this.options.mailer.close();
  }
}
