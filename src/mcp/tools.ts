/**
 * The MCP tools, defined once for both transports (hosted Streamable HTTP at /mcp, and stdio).
 * Their input schemas are the REST API's own zod schemas, and each tool is a call of the REST
 * API through ApiClient with the session's key: the tools add no behaviour of their own.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { EmptyResultSchema, type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { KeyResponse, TrialKeyRequest } from '../../schemas/accounts.ts';
import { GenerateRequest, GenerateResponse } from '../../schemas/generation.ts';
import { DeployedList } from '../../schemas/live.ts';
import { OneShotDone, OneShotRequest, type OneShotStep } from '../../schemas/oneshot.ts';
import { OptimizeJobView, OptimizeRequest, type OptimizeProgress } from '../../schemas/optimize.ts';
import { ModelList } from '../../schemas/training.ts';
import { AppError } from '../errors.ts';
import { ApiError, type ApiClient } from './api-client.ts';

export const SERVER_INFO = { name: 'signalforge', version: '1.0.0' } as const;

export interface ToolContext {
  /** The REST API, called with this session's key. */
  api: ApiClient;
  /** Mints a trial key and makes it this session's key (stdio only; registers get_trial_key). */
  getTrialKey?: (request: TrialKeyRequest, signal?: AbortSignal) => Promise<KeyResponse>;
  /** What to do about a refusal with this status, in this transport's terms (402: how to get credits). */
  hints: Partial<Record<number, string>>;
}

const INSTRUCTIONS =
  'signalforge turns a forex trading idea into strategy code, trains and backtests it on historical bars, and deploys ' +
  'it as a live signal. one_shot does all of it in one call (seconds, with progress notifications); ' +
  'optimize searches a strategy’s parameters walk-forward and says whether the best is real; ' +
  'generate_strategy only writes the code; list_models and list_deployed show what this session’s key owns. ' +
  'Calls cost credits from the session’s key; a refusal comes back as an error result with the HTTP status.';

/** A new McpServer with every tool of this context registered. */
export function buildMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  registerTools(server, context);
  return server;
}

export function registerTools(server: McpServer, context: ToolContext): void {
  const { api } = context;

  server.registerTool(
    'one_shot',
    {
      title: 'Idea → live signal',
      description:
        'Turns a trading idea in plain language into a live forex signal: writes the strategy code, trains and ' +
        'backtests it (walk-forward, train/test split) and deploys it. Takes seconds (longer for long 1-min spans); progress ' +
        'notifications report each stage (progress 0-100 of total 100). Returns the model: stem, test ' +
        'metrics (TradeStats), channels, live_url, credits_remaining, and `robustness`: is the edge real? — the verdict ' +
        '(robust, inconclusive or overfit) with its reasons in plain words, the deflated Sharpe and its p-value, the ' +
        'random-entry p-value and the walk-forward folds profitable. Tell the user the verdict and its reasons. ' +
        '`deploy_if` (always by default, not_overfit, robust) keeps a model whose verdict falls short off live: it is ' +
        'kept, the pipeline fee is refunded, and the result has deployed: false and not_deployed_reason (live_url and ' +
        'deployment_id null). Costs generation credits plus a pipeline fee; ' +
        'with your own `code`, generation is skipped and only a training-compute run counts. Name the symbol and ' +
        'timeframe in the prompt or pass them (defaults EURUSD, 15min). `deliver_to` wires channels besides SSE: webhook ' +
        "(optionally in an execution bridge's body template), messenger, discord, slack, and email (true: the address the " +
        'account confirmed by the link of POST /api/v1/email; refused when none is, or when the server has no SMTP_URL).',
      inputSchema: OneShotRequest.shape,
      outputSchema: OneShotDone.shape,
      annotations: {
        title: 'Idea → live signal',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (args, extra) =>
      run(context, async () => {
        // Progress must increase: a step at the same pct as the last one sent (a rewrite during generation) is folded.
        const progress = progressReporter(extra);
        try {
          return await api.oneShot(args, (step: OneShotStep) => progress.report(step.pct, 100, step.msg), extra.signal);
        } finally {
          await progress.flush();
        }
      }),
  );

  server.registerTool(
    'optimize',
    {
      title: 'Optimise a strategy, walk-forward',
      description:
        'Searches a strategy’s parameters (`parameters`: stop_loss, take_profit, trailing stop, confidence_threshold, ' +
        'pos_rules such as cooldown, session and day filters, model_type and model_params.*, indicator periods as indicators.<key> where the ' +
        'strategy reads them from strategy_config()["indicators"], as generated strategies do) by grid, ' +
        'random or tpe search (`method`, `trials`) against `optimization` (a metric or plain language such as "maximise ' +
        'profit factor with drawdown under 10 %"), walk-forward: chosen on the in-sample folds, tested on the last one. ' +
        'Waits for the job (seconds to minutes by size; progress notifications count the trials run of those planned) and ' +
        'returns it as GET /api/v1/optimize/{id} does: every trial’s parameters with in-sample and out-of-sample metrics, ' +
        'chosen_trial, walk_forward, pbo (Probability of Backtest Overfitting), degradation, and `robustness` — the chosen ' +
        'trial’s robustness report with its verdict (robust, inconclusive, overfit) and reasons: tell the user the verdict ' +
        'before suggesting to use the result. `save_as` (and `deploy`) saves the chosen trial as a model. Costs credits by ' +
        'size (per trial, more when the space changes the model); a cancelled call does not stop the job (DELETE ' +
        '/api/v1/optimize/{id} does, refunding the trials not run).',
      inputSchema: OptimizeRequest.shape,
      outputSchema: OptimizeJobView.shape,
      annotations: {
        title: 'Optimise a strategy, walk-forward',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (args, extra) =>
      run(context, async () => {
        const started = await api.startOptimize(args, extra.signal);
        // Progress is the trials run (done or failed) of those planned; it must increase.
        const progress = progressReporter(extra);
        const onProgress = (p: OptimizeProgress) => {
          const ran = p.trials_done + p.trials_failed;
          progress.report(ran, p.trials_planned, `${ran} of ${p.trials_planned} trials${p.stage ? `: ${p.stage}` : ''}`);
        };
        try {
          return await api.followOptimize(started.optimize_id, onProgress, extra.signal);
        } finally {
          await progress.flush();
        }
      }),
  );

  server.registerTool(
    'list_models',
    {
      title: 'List trained models',
      description:
        'Your trained models, newest first: stem (`<user_id>_<SYMBOL>_<timeframe>_<model_name>`), model_name, symbol, ' +
        'timeframe, model type, title, trained_at, and train and test stats (TradeStats). Free.',
      outputSchema: ModelList.shape,
      annotations: { title: 'List trained models', readOnlyHint: true, openWorldHint: false },
    },
    async (extra) => run(context, () => api.listModels(extra.signal)),
  );

  server.registerTool(
    'list_deployed',
    {
      title: 'List deployed models',
      description: 'Your deployed models (oldest first): stem, model_name, symbol, timeframe, channels, created_at. Free.',
      outputSchema: DeployedList.shape,
      annotations: { title: 'List deployed models', readOnlyHint: true, openWorldHint: false },
    },
    async (extra) => run(context, () => api.listDeployed(extra.signal)),
  );

  server.registerTool(
    'generate_strategy',
    {
      title: 'Generate strategy code',
      description:
        'Writes strategy code (a Python file with feature_engineering and strategy_config) from an idea and optional ' +
        'structured fields: features, signals, model, risk, indicators, pos_rules, symbol, timeframe. The code passes ' +
        'the static check; train it with one_shot (pass it as `code`). Costs credits (see the REST API’s POST /api/v1/generate).',
      inputSchema: GenerateRequest.shape,
      outputSchema: GenerateResponse.shape,
      annotations: {
        title: 'Generate strategy code',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (args, extra) => run(context, () => api.generate(args, extra.signal)),
  );

  const { getTrialKey } = context;
  if (getTrialKey) {
    server.registerTool(
      'get_trial_key',
      {
        title: 'Get a trial key',
        description:
          'Mints a new anonymous trial key (no signup; a few credits; the service allows 5 per IP address per hour by ' +
          'default) and uses it for the rest of this session. Returns api_key, user_id, username, credits. Optional ' +
          '`username`: a permanent handle (3-20 letters, digits, _ or -); omitted, an auto handle is chosen.',
        inputSchema: TrialKeyRequest.shape,
        outputSchema: KeyResponse.shape,
        annotations: { title: 'Get a trial key', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      async (args, extra) => run(context, () => getTrialKey(args, extra.signal)),
    );
  }
}

/** Runs a tool: its answer as JSON text and structuredContent, or a refusal as an error result. */
async function run<T extends object>(context: ToolContext, call: () => Promise<T>): Promise<CallToolResult> {
  try {
    const data = await call();
    return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data as Record<string, unknown> };
  } catch (err) {
    return errorResult(err, context);
  }
}

/**
 * A refusal as an error result: the text is the REST API's error body `{error, code}` (code = the
 * HTTP status; a one_shot stream's `error` event is `{error}` alone), with a `hint` saying what to
 * do when there is one (a 402: how to get credits).
 */
export function errorResult(err: unknown, context: Pick<ToolContext, 'hints'>): CallToolResult {
  if ((err as Error)?.name === 'AbortError') throw err;
  let status: number | null = 500;
  let retryAfter: number | undefined;
  if (err instanceof ApiError) {
    status = err.status;
    retryAfter = err.retryAfter;
  } else if (err instanceof AppError) {
    status = err.status;
    const header = Number(err.headers['retry-after']);
    if (header > 0) retryAfter = header;
  }
  const message = err instanceof Error ? err.message : String(err);
  const hint = [status === null ? undefined : context.hints[status], retryAfter ? `Retry after ${retryAfter} s.` : undefined]
    .filter(Boolean)
    .join(' ');
  // A one_shot that failed mid-stream has no status of its own: its body is the `error` event's.
  const body = { error: message, ...(status === null ? {} : { code: status }), ...(hint ? { hint } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** What a tool handler is handed besides its arguments. */
type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long flush waits for the client's ping answer before returning the result anyway. */
const FLUSH_PING_MS = 5_000;

/**
 * Progress notifications for one tool call: only increasing values are sent, in order. flush()
 * must be awaited before the result is returned: the SDK client handles a notification a
 * microtask late but a response at once, so a notification read in the same chunk as the result
 * arrives after its progress handler is gone ("unknown token"). No pause is long enough on a
 * loaded machine; instead flush pings the client and waits for its answer, which it sends only
 * after handling everything that came before the ping.
 */
export function progressReporter(extra: ToolExtra) {
  const progressToken = extra._meta?.progressToken;
  let last = -Infinity;
  let sent: Promise<unknown> = Promise.resolve();
  return {
    report(progress: number, total: number, message: string): void {
      if (progressToken === undefined || progress <= last) return;
      last = progress;
      const notification = { method: 'notifications/progress' as const, params: { progressToken, progress, total, message } };
      sent = sent.then(() => extra.sendNotification(notification)).catch(() => undefined);
    },
    async flush(): Promise<void> {
      await sent;
      if (last === -Infinity) return;
      await extra.sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: FLUSH_PING_MS }).catch(() => undefined);
    },
  };
}
