import type { NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import type { Logger } from '../log.ts';
import type { TopicSubscription } from './typed.ts';

/**
 * A request/reply service of the switchboard (schemas/messages.ts `Requests`): the subject it is
 * asked on, and the schema of a JSON request (null: the request is bytes of the service's own
 * framing). Replies are bytes: each service's reply has its own encoding (JSON, float64 columns,
 * store frames), read by its caller.
 */
export interface RequestService<Q extends z.ZodType | null> {
  subject: string;
  request: Q;
}

/** What a service is asked with: the schema's input, or bytes. */
export type Asked<Q extends z.ZodType | null> = Q extends z.ZodType ? z.input<Q> : Uint8Array;
/** What an answering handler receives: the parsed request, or its bytes. */
export type Received<Q extends z.ZodType | null> = Q extends z.ZodType ? z.infer<Q> : Uint8Array;

/**
 * Asks a service and resolves with the reply's bytes. A JSON request is validated before it is
 * sent. Without a responder it rejects with the client's "no responders" error (callers say
 * which process to start); without a reply within `timeoutMs`, with its timeout error.
 */
export async function ask<Q extends z.ZodType | null>(
  bus: { nc: Pick<NatsConnection, 'request'> },
  service: RequestService<Q>,
  request: Asked<Q>,
  timeoutMs: number,
): Promise<Uint8Array> {
  const payload = service.request ? JSON.stringify(service.request.parse(request)) : (request as Uint8Array);
  return (await bus.nc.request(service.subject, payload, { timeout: timeoutMs })).data;
}

export interface AnswerOptions {
  log: Logger;
  /** A queue group: one answerer of the group gets each request (a second owner never answers twice). */
  queue?: string;
  /** The reply to a JSON request that does not parse by the service's schema (default: none; the asker times out). */
  invalid?: (reason: string) => Uint8Array | string;
}

/**
 * Answers each request of a service with what `handler` resolves to. A handler that throws is
 * logged and the request left unanswered (the asker's timeout tells it): a handler that has an
 * answer for its failures (an error reply) returns it instead.
 */
export function answer<Q extends z.ZodType | null>(
  bus: { nc: Pick<NatsConnection, 'subscribe'> },
  service: RequestService<Q>,
  handler: (request: Received<Q>) => Promise<Uint8Array | string>,
  options: AnswerOptions,
): TopicSubscription {
  return bus.nc.subscribe(service.subject, {
    ...(options.queue ? { queue: options.queue } : {}),
    callback: (err, msg) => {
      if (err) return;
      let request: Received<Q>;
      if (service.request) {
        let parsed: { success: true; data: unknown } | { success: false; error: { message: string } };
        try {
          parsed = service.request.safeParse(msg.json());
        } catch (e) {
          parsed = { success: false, error: { message: `not JSON: ${(e as Error).message}` } };
        }
        if (!parsed.success) {
          if (options.invalid) msg.respond(options.invalid(parsed.error.message));
          return;
        }
        request = parsed.data as Received<Q>;
      } else {
        request = msg.data as Received<Q>;
      }
      handler(request).then(
        (reply) => msg.respond(reply),
        (e: unknown) => options.log.error({ err: e, subject: service.subject }, 'request failed: left unanswered'),
      );
    },
  });
}
