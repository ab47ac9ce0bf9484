import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '../../log.ts';
import { codeHeader } from '../../sandbox/index.ts';
import type { MarketGenerateRequest } from '../../../schemas/generation.ts';
import type { StaticViolation } from '../../../schemas/strategy.ts';
import type { StrategyCheck } from './checks.ts';
import { CodeExtractor } from './extract.ts';
import { costUsd, type TokenUsage } from './pricing.ts';
import { repairPrompt, requestPrompt } from './prompts.ts';
import { systemPrompt } from './system-prompt.ts';

/** The ai_model values that go to Claude. */
export type ClaudeChoice = 'sonnet' | 'opus' | 'haiku' | 'sonnet-haiku';

/** Model ids per family (ANTHROPIC_MODEL_SONNET / _OPUS / _HAIKU). */
export interface ClaudeModelIds {
  sonnet: string;
  opus: string;
  haiku: string;
}

/** Current model ids; the env settings override them. */
export const DEFAULT_MODEL_IDS: ClaudeModelIds = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};

export interface ClaudeSettings {
  apiKey: string;
  /** Default https://api.anthropic.com (a stand-in server in tests). */
  baseURL?: string;
  models: ClaudeModelIds;
  /** Repair rounds after the first answer when the checks refuse it (default 2). */
  repairTries: number;
  /** Retries of the SDK itself on connection errors, 408/409/429/5xx/529 (default 2, with backoff). */
  maxRetries?: number;
  /** Per request, retries included (default 120 s). */
  timeoutMs?: number;
  /** Output budget of one answer (default 8192 tokens; a strategy file is 1-3k). */
  maxTokens?: number;
}

export interface ClaudeDeps {
  check: StrategyCheck;
  /** Where the USD of every call goes (the platform cost guard). */
  recordSpend: (usd: number) => Promise<void>;
  log: Logger;
}

/** Live output of one generation: code tokens, and `onReset` when the text so far is discarded. */
export interface WriteHooks {
  onToken?: (text: string) => void;
  /** The previous answer is being replaced (a repair, or the offline fallback): drop the text so far. */
  onReset?: (reason: string) => void;
  signal?: AbortSignal;
}

export type ClaudeOutcome =
  | { ok: true; code: string; model: string; attempts: number; usd: number }
  | {
      ok: false;
      /** api: the API failed (after the SDK's retries); checks: no answer passed within the tries; aborted: the caller went away. */
      kind: 'api' | 'checks' | 'aborted';
      reason: string;
      attempts: number;
      usd: number;
      violations?: StaticViolation[];
    };

/**
 * `sonnet-haiku`: Haiku writes the draft (cheap, fast); when the checks refuse it, Sonnet
 * does the repairs. Every other choice uses one model throughout.
 */
export function modelPlan(choice: ClaudeChoice, ids: ClaudeModelIds): { draft: string; repair: string } {
  if (choice === 'sonnet-haiku') return { draft: ids.haiku, repair: ids.sonnet };
  return { draft: ids[choice], repair: ids[choice] };
}

/**
 * Writes strategy code with Claude: streaming Messages API, the contract as a cached system
 * prompt, the code extracted from the answer and checked, and the violations sent back for a
 * bounded number of repairs. Never falls back itself: it reports why it failed.
 */
export class ClaudeGenerator {
  readonly client: Anthropic;

  constructor(
    readonly settings: ClaudeSettings,
    private readonly deps: ClaudeDeps,
  ) {
    this.client = new Anthropic({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL || 'https://api.anthropic.com',
      maxRetries: settings.maxRetries ?? 2,
      timeout: settings.timeoutMs ?? 120_000,
      logger: deps.log.child({ component: 'anthropic' }),
      logLevel: 'warn',
    });
  }

  async write(request: MarketGenerateRequest, choice: ClaudeChoice, hooks: WriteHooks = {}): Promise<ClaudeOutcome> {
    const plan = modelPlan(choice, this.settings.models);
    const header = codeHeader(request.symbol, request.timeframe);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: requestPrompt(request) }];
    const tries = 1 + Math.max(0, this.settings.repairTries);
    let usd = 0;
    let violations: StaticViolation[] = [];
    for (let attempt = 1; attempt <= tries; attempt++) {
      const model = attempt === 1 ? plan.draft : plan.repair;
      if (attempt > 1) hooks.onReset?.(`repairing ${violations.length} violation(s)`);
      const extractor = new CodeExtractor(header, hooks.onToken);
      let text: string;
      try {
        const answer = await this.call(model, messages, extractor, hooks.signal);
        usd += answer.usd;
        text = answer.text;
      } catch (err) {
        usd += (err as { usd?: number }).usd ?? 0;
        const aborted = hooks.signal?.aborted ?? false;
        const reason = describeApiError(err);
        this.deps.log.warn({ model, attempt, err: reason }, 'claude generation failed');
        return { ok: false, kind: aborted ? 'aborted' : 'api', reason, attempts: attempt, usd };
      }
      const code = extractor.finish();
      const check = await this.deps.check(code);
      if (check.ok) return { ok: true, code, model, attempts: attempt, usd };
      violations = check.violations;
      this.deps.log.info(
        { model, attempt, violations: violations.length, rules: [...new Set(violations.map((v) => v.rule))] },
        'claude answer refused by the checks',
      );
      messages.push({ role: 'assistant', content: text }, { role: 'user', content: repairPrompt(violations) });
    }
    return { ok: false, kind: 'checks', reason: `no answer passed the checks in ${tries} tries`, attempts: tries, usd, violations };
  }

  /** One streamed call; the text goes through the extractor as it arrives. Records its spend. */
  private async call(
    model: string,
    messages: Anthropic.MessageParam[],
    extractor: CodeExtractor,
    signal?: AbortSignal,
  ): Promise<{ text: string; usd: number }> {
    const stream = this.client.messages.stream(
      {
        model,
        max_tokens: this.settings.maxTokens ?? 8192,
        system: [{ type: 'text', text: systemPrompt(), cache_control: { type: 'ephemeral' } }],
        messages,
      },
      { signal },
    );
    stream.on('text', (delta) => extractor.push(delta));
    try {
      const message = await stream.finalMessage();
      const usd = await this.spend(model, message.usage);
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      if (message.stop_reason === 'max_tokens') this.deps.log.warn({ model }, 'claude answer cut at max_tokens');
      return { text, usd };
    } catch (err) {
      // Input tokens of a stream that broke off are billed too, as far as we know them.
      const partial = stream.currentMessage?.usage;
      const usd = partial ? await this.spend(model, partial) : 0;
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { usd });
    }
  }

  private async spend(model: string, usage: TokenUsage): Promise<number> {
    const usd = costUsd(model, usage);
    try {
      await this.deps.recordSpend(usd);
    } catch (err) {
      this.deps.log.error({ err, usd }, 'could not record AI spend');
    }
    return usd;
  }
}

/** One line on why a call failed: status and API error type when there is one. */
export function describeApiError(err: unknown): string {
  if (err instanceof Anthropic.APIUserAbortError) return 'aborted';
  if (err instanceof Anthropic.APIConnectionTimeoutError) return 'the Anthropic API timed out';
  if (err instanceof Anthropic.APIConnectionError) return `cannot reach the Anthropic API: ${err.message}`;
  if (err instanceof Anthropic.APIError) {
    const type = (err.error as { error?: { type?: string } } | undefined)?.error?.type;
    return `Anthropic API ${err.status ?? 'error'}${type ? ` ${type}` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}
