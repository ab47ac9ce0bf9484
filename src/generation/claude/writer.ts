import type { GenerateRequest, Generator, MarketGenerateRequest, Understood } from '../../../schemas/generation.ts';
import type { ClaudeChoice, ClaudeGenerator, WriteHooks } from './claude-generator.ts';

/** The offline generator as the writer uses it (src/generation/offline). */
export interface OfflineGenerator {
  /** The code, and how the request was read when the generator says (so it is not read twice). */
  generate(request: GenerateRequest): { code: string; understood?: Understood };
  /** The code in chunks, for streaming; they concatenate to the code. */
  tokens(code: string): Iterable<string>;
}

export interface WrittenStrategy {
  code: string;
  generator: Generator;
  /** The Claude model id that wrote the code; null for offline. */
  ai_model: string | null;
  /** Why Claude did not answer when it was asked to (null when it answered or was not asked). */
  fallback: string | null;
  /** USD the Claude calls cost (also on fallback). */
  usd: number;
  /** The offline generator's reading of the request, when it wrote the code. */
  understood?: Understood;
}

/** The caller went away while Claude was writing: nothing is returned, nothing is owed. */
export class GenerationAbortedError extends Error {
  override name = 'GenerationAbortedError';
}

export interface WriteOptions {
  /** Claude, or null when it is not to be asked (no key, no ai_model, budget spent). */
  claude: Pick<ClaudeGenerator, 'write'> | null;
  choice: ClaudeChoice | null;
  offline: OfflineGenerator;
  hooks?: WriteHooks;
}

/**
 * Writes the strategy: Claude when asked for, else (or when Claude fails: API errors after the
 * SDK's retries, or answers that still break the checks after the repairs) the offline
 * generator. A stream that already carried Claude's text gets `onReset` before the offline code.
 */
export async function writeStrategy(
  request: MarketGenerateRequest,
  { claude, choice, offline, hooks = {} }: WriteOptions,
): Promise<WrittenStrategy> {
  let fallback: string | null = null;
  let usd = 0;
  if (claude && choice) {
    let dirty = false;
    const outcome = await claude.write(request, choice, {
      ...hooks,
      onToken: (text) => {
        dirty = true;
        hooks.onToken?.(text);
      },
      onReset: (reason) => {
        dirty = false;
        hooks.onReset?.(reason);
      },
    });
    usd = outcome.usd;
    if (outcome.ok) return { code: outcome.code, generator: 'claude', ai_model: outcome.model, fallback: null, usd };
    if (outcome.kind === 'aborted' || hooks.signal?.aborted) throw new GenerationAbortedError('the client went away');
    fallback = outcome.reason;
    if (dirty) hooks.onReset?.(`the offline generator answers instead: ${outcome.reason}`);
  }
  const { code, understood } = offline.generate(request);
  if (hooks.onToken) for (const chunk of offline.tokens(code)) hooks.onToken(chunk);
  return { code, generator: 'offline', ai_model: null, fallback, usd, ...(understood ? { understood } : {}) };
}
