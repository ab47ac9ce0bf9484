import type { DeliveryChannel } from '../../schemas/delivery.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';

/** What one delivery attempt came to. */
export type SendOutcome =
  | { ok: true; status: number | null }
  | {
      ok: false;
      /** The receiver asked never to be called again (webhook 410 Gone; a deleted Discord or Slack webhook). */
      gone?: boolean;
      /** Retrying cannot help this message (an SMTP 5xx, a daily cap): it becomes a dead letter now; the channel stays on. */
      permanent?: boolean;
      /** email: not sent because the account's daily cap was reached (the dead letter says so). */
      capped?: boolean;
      status: number | null;
      error: string;
    };

/** Pushes one signal to one channel of a deployment, once; retries are the worker's business. */
export interface ChannelSender {
  readonly channel: DeliveryChannel;
  /**
   * `abort` cuts a send short (its delivery's lease is running out); the outcome is then ignored.
   * `stopping` says the worker is stopping (the deployment may go to another process at once): a
   * sender that is only waiting (a rate-limit hold) must give up without sending; a request
   * already made may finish.
   */
  send(event: SignalEvent, deployment: DeploymentRecord, abort?: AbortSignal, stopping?: AbortSignal): Promise<SendOutcome>;
  close?(): Promise<void> | void;
}
