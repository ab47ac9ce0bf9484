import type { Metering } from '../accounts/index.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import {
  GenerationAbortedError,
  writeStrategy,
  type ClaudeChoice,
  type ClaudeGenerator,
  type OfflineGenerator,
  type WriteHooks,
} from './claude/index.ts';
import type {
  FromTemplateRequest,
  GenerateRequest,
  GenerateResponse,
  MarketGenerateRequest,
  Understood,
} from '../../schemas/generation.ts';
import { withMarket } from './market-mention.ts';
import type { Caller } from '../../schemas/account-records.ts';
import { capFor, type GenerationCosts } from './costs.ts';
import { EventChannel } from './event-channel.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

/** Who is generating: enough to charge credits and count caps. */

/** One frame of POST /generate/stream. `reset`: drop the text so far (a repair or the offline fallback follows). */
export type GenerateStreamEvent =
  | { event: 'token'; data: { text: string } }
  | { event: 'reset'; data: { reason: string } }
  | { event: 'done'; data: GenerateResponse }
  | { event: 'error'; data: { error: string } };

export interface GenerationDeps {
  metering: Pick<Metering, 'charge' | 'refund' | 'useCap' | 'releaseCap' | 'aiBudgetLeft'>;
  /** Null when no ANTHROPIC_API_KEY is set: every generation is offline. */
  claude: Pick<ClaudeGenerator, 'write'> | null;
  offline: OfflineGenerator;
  /** A template request as a generate request (the offline generator's templates). */
  templateRequest: (request: FromTemplateRequest) => GenerateRequest;
  /** How the request is read, setting by setting (the offline generator's reading), when the writer did not say. */
  understand: (request: GenerateRequest) => Understood;
  costs: GenerationCosts;
  log: Logger;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

/** What was paid up front for one generation, so it can be settled or given back. */
interface Ticket {
  user: Caller;
  /** The Claude model family asked for, or null when the offline generator writes. */
  choice: ClaudeChoice | null;
  cost: number;
  /** What the call costs if the offline generator ends up writing. */
  offlineCost: number;
  countedAt: number;
  balance: number;
  reason: 'generate' | 'generate_template';
}

/**
 * Strategy generation as the API offers it. Per call: decide who writes (Claude when an
 * ai_model is asked for, a key is configured and the platform's AI budget is not spent; the
 * offline generator otherwise), count the model's daily cap (429 past it) and charge the credits
 * (402 when short) before any work; when Claude falls back to offline, give the cap back and
 * refund the difference to the offline price; when everything fails, refund all of it.
 */
export class Generation {
  private readonly clock: Clock;

  constructor(private readonly deps: GenerationDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  /** Credits per call (for the API description). */
  get costs(): GenerationCosts {
    return this.deps.costs;
  }

  /** Whether Claude can be asked at all (an ANTHROPIC_API_KEY is configured). */
  get claudeEnabled(): boolean {
    return this.deps.claude !== null;
  }

  async generate(user: Caller, request: GenerateRequest): Promise<GenerateResponse> {
    const ticket = await this.pay(user, request, 'generate');
    return this.run(ticket, withMarket(request), {});
  }

  async fromTemplate(user: Caller, request: FromTemplateRequest): Promise<GenerateResponse> {
    const generateRequest = this.deps.templateRequest(request);
    const ticket = await this.pay(user, generateRequest, 'generate_template');
    return this.run(ticket, withMarket(generateRequest), {});
  }

  /**
   * Pays first (so 402 and 429 are plain HTTP errors, before any stream opens), then returns
   * the events: `token`s as the code is written, then `done` (or `error`, everything refunded).
   * Aborting `signal` (the client went away) stops Claude and refunds the call.
   */
  async stream(user: Caller, request: GenerateRequest, signal?: AbortSignal): Promise<AsyncIterable<GenerateStreamEvent>> {
    const ticket = await this.pay(user, request, 'generate');
    const channel = new EventChannel<GenerateStreamEvent>();
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const hooks: WriteHooks = {
      onToken: (text) => channel.push({ event: 'token', data: { text } }),
      onReset: (reason) => channel.push({ event: 'reset', data: { reason } }),
      signal: abort.signal,
    };
    const running = this.run(ticket, withMarket(request), hooks).then(
      (response) => channel.push({ event: 'done', data: response }),
      (err: unknown) => channel.push({ event: 'error', data: { error: publicMessage(err) } }),
    );
    void running.finally(() => {
      signal?.removeEventListener('abort', onAbort);
      channel.close();
    });
    return {
      async *[Symbol.asyncIterator]() {
        try {
          yield* channel;
        } finally {
          // The consumer stopped early: stop Claude (the run refunds), and let the run settle.
          abort.abort();
          await running;
        }
      },
    };
  }

  /** Decides who writes, counts the cap and charges. Throws 429 / 402 having changed nothing. */
  private async pay(user: Caller, request: GenerateRequest, reason: Ticket['reason']): Promise<Ticket> {
    const { metering, costs, claude } = this.deps;
    const offlineCost = reason === 'generate_template' ? costs.template : costs.offline;
    const asked = request.ai_model ?? null;
    const choice = asked && claude && (await metering.aiBudgetLeft()) ? asked : null;
    const countedAt = this.clock.now();
    if (!choice) {
      const balance = await metering.charge(user.user_id, offlineCost, reason, 'offline');
      return { user, choice, cost: offlineCost, offlineCost, countedAt, balance, reason };
    }
    await metering.useCap(user.user_id, user.plan, capFor(choice));
    try {
      const balance = await metering.charge(user.user_id, costs[choice], reason, choice);
      return { user, choice, cost: costs[choice], offlineCost, countedAt, balance, reason };
    } catch (err) {
      await metering.releaseCap(user.user_id, capFor(choice), countedAt);
      throw err;
    }
  }

  /** Writes the code and settles the ticket: partial refund on fallback, full refund on failure. */
  private async run(ticket: Ticket, request: MarketGenerateRequest, hooks: WriteHooks): Promise<GenerateResponse> {
    const { metering, log } = this.deps;
    const { user, choice } = ticket;
    let written;
    try {
      written = await writeStrategy(request, { claude: choice ? this.deps.claude : null, choice, offline: this.deps.offline, hooks });
    } catch (err) {
      if (choice)
        await metering.releaseCap(user.user_id, capFor(choice), ticket.countedAt).catch((e) => log.error({ err: e }, 'cap release failed'));
      await metering.refund(user.user_id, ticket.cost, `${ticket.reason}:failed`).catch((e) => log.error({ err: e }, 'refund failed'));
      if (!(err instanceof GenerationAbortedError)) log.error({ err, user_id: user.user_id }, 'generation failed');
      throw err;
    }
    let balance = ticket.balance;
    if (choice && written.generator === 'offline') {
      // Claude did not answer: the cap is not used, and the call costs what offline costs.
      await metering.releaseCap(user.user_id, capFor(choice), ticket.countedAt);
      balance = await metering.refund(user.user_id, ticket.cost - ticket.offlineCost, `${ticket.reason}:fallback`);
    }
    log.info(
      {
        user_id: user.user_id,
        asked: request.ai_model ?? null,
        generator: written.generator,
        ai_model: written.ai_model,
        fallback: written.fallback,
        usd: written.usd,
      },
      'strategy generated',
    );
    return {
      code: written.code,
      credits_remaining: balance,
      generator: written.generator,
      ai_model: written.ai_model,
      symbol: request.symbol,
      timeframe: request.timeframe,
      understood: written.understood ?? this.deps.understand(request),
    };
  }
}

/** What a stream's `error` event says: our own errors' messages, nothing internal otherwise. */
function publicMessage(err: unknown): string {
  if (err instanceof AppError || err instanceof GenerationAbortedError) return err.message;
  return 'generation failed; your credits were refunded';
}
