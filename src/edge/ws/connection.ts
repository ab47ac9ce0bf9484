import type { RawData } from 'ws';
import { limitRefusal, type AccountDirectory, type ClusterRateLimiter } from '../../accounts/index.ts';
import { AppError, BadRequestError, ConflictError, RateLimitedError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Training } from '../../training/index.ts';
import type { UserRecord } from '../../../schemas/account-records.ts';
import {
  ClientMessage,
  CloseCodes,
  STREAM_PROTOCOL_VERSION,
  type Channel,
  type ErrorMessage,
  type StreamLimits,
} from '../../../schemas/stream.ts';
import { openChannel, resolveChannel, type ChannelDeps, type ResolvedChannel } from './channels.ts';
import type { ClientSocket } from './client-socket.ts';

export interface ConnectionDeps {
  channels: ChannelDeps;
  training: Pick<Training, 'predict'>;
  directory: Pick<AccountDirectory, 'authenticate'>;
  /** The per-key request limit of the REST API: subscribe and predict count against it. */
  limiter: Pick<ClusterRateLimiter, 'take' | 'max'>;
  /** What `welcome` tells the client. */
  limits: StreamLimits;
  log: Logger;
}

/** What a connection asks of the gateway once a user is known: its per-key slot (false: over the limit, closed). */
export type OnAuthenticated = (user: UserRecord) => Promise<boolean>;

/**
 * One client's conversation: authentication (unless the upgrade carried it), then subscribe,
 * unsubscribe, predict and ping, each answered or refused with `{type: "error", error, code}`.
 */
export class StreamConnection {
  private user: UserRecord | null = null;
  /** Open subscriptions by channel key; a pending one holds null until its channel is open. */
  private readonly subscriptions = new Map<string, (() => void) | null>();
  /** The key each model name or stem subscribed by resolved to (predictions are keyed by deployment). */
  private readonly predictionKeys = new Map<string, string>();
  private ended = false;
  /** The key's slot being taken (over every edge): frames after the auth wait for it, in order. */
  private authenticating: Promise<boolean> | null = null;

  constructor(
    private readonly socket: ClientSocket,
    private readonly deps: ConnectionDeps,
    private readonly onAuthenticated: OnAuthenticated,
  ) {}

  get authenticated(): boolean {
    return this.user !== null;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** A user identified by the upgrade (X-API-Key or session cookie); false when refused. */
  authenticate(user: UserRecord): Promise<boolean> {
    this.authenticating = this.onAuthenticated(user).then((ok) => {
      if (!ok) return false;
      this.user = user;
      this.socket.send({ type: 'welcome', protocol: STREAM_PROTOCOL_VERSION, user: user.username, limits: this.deps.limits });
      return true;
    });
    return this.authenticating;
  }

  async receive(data: RawData, isBinary: boolean): Promise<void> {
    if (this.authenticating) await this.authenticating;
    this.socket.lastHeardAt = performance.now();
    this.socket.alive = true;
    let json: unknown;
    try {
      if (isBinary) throw new Error('binary');
      json = JSON.parse(data.toString());
    } catch {
      return this.refuse(
        new BadRequestError('frames are JSON text messages: {"type": "subscribe", …} (see GET /api/v1/predict in /api-docs)'),
      );
    }
    const parsed = ClientMessage.safeParse(json);
    if (!parsed.success) {
      const ref = typeof json === 'object' && json && 'ref' in json && typeof json.ref === 'string' ? json.ref.slice(0, 64) : undefined;
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
      return this.refuse(new BadRequestError(`malformed message: ${problems}`), ref);
    }
    const message = parsed.data;
    if (!this.user) {
      if (message.type !== 'auth') {
        this.socket.close(CloseCodes.unauthorized, 'unauthorized: send {"type":"auth","api_key":…} first, or the X-API-Key header');
        return;
      }
      const user = this.deps.directory.authenticate(message.api_key);
      if (!user) {
        this.socket.close(CloseCodes.unauthorized, 'unauthorized: the API key is not valid; get one with POST /api/v1/key/trial');
        return;
      }
      await this.authenticate(user);
      return;
    }
    const ref = 'ref' in message ? message.ref : undefined;
    try {
      switch (message.type) {
        case 'auth':
          throw new BadRequestError('already authenticated: open a new connection to use another key');
        case 'ping':
          this.socket.send({ type: 'pong', ...(ref ? { ref } : {}) });
          return;
        case 'subscribe':
          return await this.subscribe(message.channel, message.since, ref);
        case 'unsubscribe': {
          const channel = message.channel;
          // The name it was subscribed by still finds it after the model was undeployed.
          const known = channel.channel === 'predictions' ? this.predictionKeys.get(channel.model) : undefined;
          const key = known ?? (await this.resolve(channel)).key;
          const stop = this.subscriptions.get(key);
          if (stop === undefined) throw new BadRequestError(`not subscribed to ${key}`);
          this.subscriptions.delete(key);
          stop?.();
          this.socket.send({ type: 'unsubscribed', channel: message.channel, ...(ref ? { ref } : {}) });
          return;
        }
        case 'predict': {
          await this.takeRequest();
          const result = await this.deps.training.predict(this.user.user_id, message.request);
          this.socket.send({ type: 'predict_result', result, ...(ref ? { ref } : {}) });
          return;
        }
      }
    } catch (err) {
      this.refuse(err, ref);
    }
  }

  /** Stops every subscription (the socket closed). */
  end(): void {
    this.ended = true;
    for (const stop of this.subscriptions.values()) stop?.();
    this.subscriptions.clear();
  }

  private async subscribe(channel: Channel, since: string | undefined, ref: string | undefined): Promise<void> {
    const resolved = await this.resolve(channel);
    const { key } = resolved;
    if (channel.channel === 'predictions') this.predictionKeys.set(channel.model, key);
    if (this.subscriptions.has(key))
      throw new ConflictError(`already subscribed to ${key}: unsubscribe first to subscribe again with since`);
    const max = this.deps.limits.subscriptions;
    if (this.subscriptions.size >= max)
      throw new RateLimitedError(`at most ${max} subscriptions per connection: unsubscribe one first, or open another connection`, 1);
    // The slot is held while the request is counted (in KV: an await), so a burst of subscribes cannot pass the limit together.
    this.subscriptions.set(key, null);
    // (A model's channel took its request when it was looked up.)
    if (!resolved.deployment) {
      try {
        await this.takeRequest();
      } catch (err) {
        if (this.subscriptions.get(key) === null) this.subscriptions.delete(key);
        throw err;
      }
    }
    let stop: () => void;
    try {
      stop = await openChannel(this.deps.channels, channel, resolved, since, {
        send: (frame) => this.socket.send(frame),
        ready: (resumed) => this.socket.send({ type: 'subscribed', channel, resumed, ...(ref ? { ref } : {}) }),
      });
    } catch (err) {
      this.subscriptions.delete(key);
      throw err;
    }
    // Unsubscribed (or disconnected) while the channel was opening: it goes at once.
    if (this.ended || !this.subscriptions.has(key)) stop();
    else this.subscriptions.set(key, stop);
  }

  /** The channel's key (and a model's deployment): a model's name costs a store read, so it is a request of the key's rate limit first. */
  private async resolve(channel: Channel): Promise<ResolvedChannel> {
    if (channel.channel === 'predictions') await this.takeRequest();
    return resolveChannel(this.deps.channels, this.user!.user_id, channel);
  }

  private async takeRequest(): Promise<void> {
    const decision = await this.deps.limiter.take(String(this.user!.user_id));
    if (!decision.ok) {
      throw new RateLimitedError(
        limitRefusal(
          decision,
          this.deps.limiter.max,
          `retry in ${Math.ceil(decision.retryAfterMs / 1000)} s`,
          ' (subscribe and predict count)',
        ),
        decision.retryAfterMs / 1000,
      );
    }
  }

  private refuse(err: unknown, ref?: string): void {
    let message: ErrorMessage;
    if (err instanceof AppError) message = { type: 'error', error: err.message, code: err.status };
    else {
      this.deps.log.error({ err }, 'websocket message failed');
      message = { type: 'error', error: 'internal error: try again (the failure is logged)', code: 500 };
    }
    this.socket.send(ref ? { ...message, ref } : message);
  }
}
