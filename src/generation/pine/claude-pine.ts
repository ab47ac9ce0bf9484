/**
 * Claude writes Pine from a description; our parser checks it, and parse errors go back for
 * repairs (as /generate repairs strategy code). Any failure answers null: the caller falls back
 * to the offline writer.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '../../log.ts';
import { runJob } from '../../pine/index.ts';
import { costUsd, describeApiError } from '../claude/index.ts';

export interface ClaudePineSettings {
  apiKey: string;
  baseURL?: string;
  models: { haiku: string; sonnet: string };
  repairTries: number;
  maxRetries?: number;
  timeoutMs?: number;
}

const SYSTEM =
  'You write TradingView Pine Script v5 indicators. Answer with exactly one ```pine code block and nothing else. ' +
  'Start with //@version=5 and indicator(title, overlay=…). Use only: ta.sma ema wma rma vwma rsi macd stoch atr tr bb ' +
  'stdev highest lowest highestbars lowestbars change mom roc cci crossover crossunder cross barssince valuewhen ' +
  'pivothigh pivotlow sar supertrend dmi cum, math.*, nz, na, input.int/float/bool/string/source, plot (force_overlay=true ' +
  'for price-scale series in a separate-pane indicator), plotshape, plotchar, hline, alertcondition, color.*, var, if, ' +
  'for, switch, user functions. No request.*, line.*, label.*, box.*, table.*, methods, types or libraries.';

const empty = new Float64Array(0);
const NO_BARS = { ts: empty, open: empty, high: empty, low: empty, close: empty, volume: empty };

const extract = (text: string): string => (/```(?:pine(?:script)?)?\s*\n([\s\S]*?)```/.exec(text)?.[1] ?? text).trim() + '\n';

export class ClaudePineWriter {
  private readonly client: Anthropic;

  constructor(
    private readonly settings: ClaudePineSettings,
    private readonly deps: { log: Logger; recordSpend(usd: number): Promise<void> },
  ) {
    this.client = new Anthropic({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL || 'https://api.anthropic.com',
      maxRetries: settings.maxRetries ?? 2,
      timeout: settings.timeoutMs ?? 120_000,
      logLevel: 'warn',
    });
  }

  /** Pine that parses, or null (API failure, or still not parsing after the repairs). */
  async write(description: string, model: 'haiku' | 'sonnet'): Promise<string | null> {
    const id = this.settings.models[model];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: `Write a Pine Script v5 indicator for: ${description}` }];
    for (let attempt = 0; attempt <= this.settings.repairTries; attempt++) {
      let text: string;
      try {
        const message = await this.client.messages.stream({ model: id, max_tokens: 4096, system: SYSTEM, messages }).finalMessage();
        await this.deps.recordSpend(costUsd(id, message.usage)).catch((err) => this.deps.log.error({ err }, 'could not record AI spend'));
        text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      } catch (err) {
        this.deps.log.warn({ model: id, err: describeApiError(err) }, 'claude pine failed');
        return null;
      }
      const pine = extract(text);
      // Parsed and checked over no bars: every static refusal (syntax, unsupported constructs), nothing run.
      const checked = runJob({ id: 0, source: pine, bars: NO_BARS, timeframe: '15min', symbol: 'EURUSD', mintick: 0.00001, wallMs: 1000 });
      if (checked.ok) return pine;
      const why = 'problem' in checked ? checked.problem.message : checked.failure;
      messages.push(
        { role: 'assistant', content: text },
        { role: 'user', content: `Our parser refuses it: ${why}. Answer with the corrected script only.` },
      );
    }
    return null;
  }
}
