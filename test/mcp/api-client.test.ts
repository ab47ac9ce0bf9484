/**
 * The tool layer on a scripted REST API (a plain HTTP server): how the one_shot stream becomes
 * progress notifications and a result, split frames and CRLF included, and how refusals become
 * error results. The real service drives the same tools in hosted.test.ts and stdio.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ApiClient, ApiError } from '../../src/mcp/api-client.ts';
import { buildMcpServer } from '../../src/mcp/tools.ts';
import { OptimizeJobView } from '../../schemas/optimize.ts';
import { robustnessReport } from '../helpers/robustness-report.ts';
import { callTool } from './mcp-helpers.ts';

const STATS = {
  n: 3,
  wins: 2,
  losses: 1,
  wr: 2 / 3,
  ret: 0.01,
  pf: 2,
  rr: 1,
  expect: 3.3,
  mdd: -0.002,
  np: 10,
  avg: 0.003,
  best: 0.006,
  worst: -0.003,
};
const DONE = {
  live_url: 'http://x/api/v1/signals/7_EURUSD_1min_Model%201/stream',
  model: 'Model 1',
  stem: '7_EURUSD_1min_Model 1',
  channels: ['sse'],
  metrics: STATS,
  train_metrics: STATS,
  job_id: 1,
  deployed: true,
  not_deployed_reason: null,
  deployment_id: 'd1',
  robustness: {
    verdict: 'overfit',
    reasons: ['test return −27 % against +289 % in training: the model learned the training period'],
    dsr: 0.12,
    dsr_p_value: 0.88,
    trials: 3,
    sharpe_annualised: -0.4,
    random_p_value: 0.61,
    folds_profitable: 1,
    folds: 5,
  },
  credits_remaining: 31,
  next_bar_at: '2026-11-29T23:00:00.000Z',
  not_in_the_schema: true,
};
/** What done says when deploy_if kept the model off live. */
const HELD = {
  ...DONE,
  live_url: null,
  channels: [],
  deployed: false,
  deployment_id: null,
  next_bar_at: null,
  not_deployed_reason:
    'not deployed: the robustness verdict is overfit (test return −27 % against +289 % in training: the model learned the training period) and deploy_if is not_overfit.',
};
const STEPS = [
  { stage: 'generate', pct: 0, msg: 'writing' },
  { stage: 'generate', pct: 0, msg: 'rewriting: repair' },
  { stage: 'generate', pct: 15, msg: 'strategy written' },
  { stage: 'train', pct: 20, msg: 'queued' },
  { stage: 'train', pct: 40, msg: 'training' },
  { stage: 'deploy', pct: 90, msg: 'deploying' },
  { stage: 'deploy', pct: 100, msg: 'live' },
];

const OBJECTIVE = { metric: 'pf', direction: 'maximize', constraints: [], echo: 'maximise pf' };
const TRIAL = (trial: number, state: 'done' | 'failed') => ({
  trial,
  params: { stop_loss: 10 + trial },
  state,
  ...(state === 'failed' ? { error: 'ValueError: boom' } : {}),
  in_sample: state === 'done' ? { ...STATS, sharpe: 0.01 } : null,
  out_of_sample: state === 'done' ? { ...STATS, sharpe: -0.01 } : null,
  value: state === 'done' ? 2 : null,
  feasible: state === 'done' ? true : null,
});
/** GET /optimize/{id} of a finished job, as its stream's `done` carries it. */
const OPTIMIZED = OptimizeJobView.parse({
  optimize_id: 5,
  status: 'done',
  symbol: 'EURUSD',
  timeframe: '15min',
  method: 'grid',
  objective: OBJECTIVE,
  trials_planned: 3,
  trials_done: 2,
  trials_failed: 1,
  credits_charged: 3,
  credits_refunded: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:01.000Z',
  finished_at: '2026-01-01T00:00:09.000Z',
  stage: null,
  folds: [{ from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z', bars: 96 }],
  trials: [TRIAL(0, 'done'), TRIAL(1, 'failed'), TRIAL(2, 'done')],
  chosen_trial: 0,
  walk_forward: null,
  pbo: { pbo: 0.7, slices: 16, logits: [-0.4, 0.2] },
  degradation: { slope: -0.3, intercept: 0.1, points: 2 },
  robustness: robustnessReport('overfit'),
  saved: null,
});
const PROGRESS = [
  {
    optimize_id: 5,
    status: 'queued',
    stage: null,
    trials_planned: 3,
    trials_done: 0,
    trials_failed: 0,
    best_value: null,
    last_trial: null,
  },
  {
    optimize_id: 5,
    status: 'running',
    stage: 'fitting',
    trials_planned: 3,
    trials_done: 0,
    trials_failed: 0,
    best_value: null,
    last_trial: null,
  },
  {
    optimize_id: 5,
    status: 'running',
    stage: 'trials',
    trials_planned: 3,
    trials_done: 1,
    trials_failed: 0,
    best_value: 2,
    last_trial: TRIAL(0, 'done'),
  },
  {
    optimize_id: 5,
    status: 'running',
    stage: 'trials',
    trials_planned: 3,
    trials_done: 1,
    trials_failed: 1,
    best_value: 2,
    last_trial: TRIAL(1, 'failed'),
  },
  {
    optimize_id: 5,
    status: 'running',
    stage: 'trials',
    trials_planned: 3,
    trials_done: 2,
    trials_failed: 1,
    best_value: 2,
    last_trial: TRIAL(2, 'done'),
  },
];

describe('MCP tools on a scripted REST API', () => {
  let server: Server;
  let url: string;
  const keys: string[] = [];
  let mode: 'ok' | 'held' | 'error' | 'broke' | 'cut' = 'ok';
  /** Bodies POSTed to /api/v1/optimize. */
  const optimizeBodies: unknown[] = [];

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      keys.push(String(req.headers['x-api-key']));
      if (mode === 'broke') {
        res.writeHead(402, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'out of credits: this call costs 10 and your balance is 0', code: 402 }));
        return;
      }
      if (req.url === '/api/v1/one_shot') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const text =
          'event: token\ndata: {"text":"import numpy"}\n\n' +
          ': a comment\r\n\r\n' +
          'event: heartbeat\ndata: {}\n\n' +
          STEPS.map((s) => `event: step\r\ndata: ${JSON.stringify(s)}\r\n\r\n`).join('') +
          (mode === 'error'
            ? 'event: error\ndata: {"error":"training failed: no trades"}\n\n'
            : mode === 'cut'
              ? ''
              : `event: done\ndata: ${JSON.stringify(mode === 'held' ? HELD : DONE)}\n\n`);
        // Frames split at awkward places, as TCP may deliver them.
        const bytes = Buffer.from(text);
        let at = 0;
        const next = () => {
          if (at >= bytes.length) return res.end();
          res.write(bytes.subarray(at, (at += 7)));
          setImmediate(next);
        };
        next();
        return;
      }
      if (req.url === '/api/v1/optimize' && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          optimizeBodies.push(JSON.parse(body));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ optimize_id: 5, status: 'queued', trials_planned: 3, credits_charged: 3, objective: OBJECTIVE }));
        });
        return;
      }
      if (req.url === '/api/v1/optimize/5/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const frames = PROGRESS.map((p) => `event: progress\ndata: ${JSON.stringify(p)}\n\n`).join('');
        res.end(mode === 'cut' ? frames : `${frames}event: done\ndata: ${JSON.stringify(OPTIMIZED)}\n\n`);
        return;
      }
      if (req.url === '/api/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ count: 0, models: [] }));
        return;
      }
      if (req.url === '/api/v1/deployed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ count: 'zero' }));
        return;
      }
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const connect = async () => {
    const api = new ApiClient({ baseUrl: url, key: async () => 'sf_test_key' });
    const mcp = buildMcpServer({ api, hints: { 402: 'get more credits somehow' } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'unit', version: '0' });
    await client.connect(clientSide);
    return client;
  };

  it('one_shot: each step that raises the pct is a progress notification, then the done payload (parsed by the schema)', async () => {
    mode = 'ok';
    const client = await connect();
    const res = await callTool(client, 'one_shot', { prompt: 'rsi' });
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.deepEqual(
      res.progress.map((p) => [p.progress, p.total, p.message]),
      [
        [0, 100, 'writing'],
        [15, 100, 'strategy written'],
        [20, 100, 'queued'],
        [40, 100, 'training'],
        [90, 100, 'deploying'],
        [100, 100, 'live'],
      ],
    );
    const { not_in_the_schema: _, ...expected } = DONE;
    assert.deepEqual(res.data, expected);
    assert.equal(keys.at(-1), 'sf_test_key', 'the session key is sent');
    await client.close();
  });

  it('one_shot returns the robustness verdict and its reasons; a model deploy_if kept off live is a result saying why, not an error', async () => {
    const client = await connect();
    mode = 'ok';
    const live = await callTool(client, 'one_shot', { prompt: 'rsi', deploy_if: 'always' });
    assert.deepEqual(live.data.robustness, DONE.robustness);
    mode = 'held';
    const held = await callTool(client, 'one_shot', { prompt: 'rsi', deploy_if: 'not_overfit' });
    assert.equal(held.error, null, JSON.stringify(held.error));
    assert.equal(held.data.deployed, false);
    assert.equal(held.data.live_url, null);
    assert.equal(held.data.deployment_id, null);
    assert.match(held.data.not_deployed_reason, /verdict is overfit/);
    assert.equal(held.data.robustness.verdict, 'overfit');
    const bad = await callTool(client, 'one_shot', { prompt: 'rsi', deploy_if: 'sometimes' });
    assert.ok(bad.result.isError, 'a deploy_if the schema does not know is refused');
    mode = 'ok';
    await client.close();
  });

  it('optimize: POSTs the request, follows the job’s stream as progress (trials run of those planned), returns the job with its robustness verdict', async () => {
    mode = 'ok';
    const client = await connect();
    const args = {
      code: 'def feature_engineering(df, close, open_, high, low):\n    return df\n',
      parameters: { stop_loss: { type: 'float', low: 10, high: 12, step: 1 } },
      method: 'grid',
      optimization: 'maximise pf',
    };
    const res = await callTool(client, 'optimize', args);
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.deepEqual(
      (optimizeBodies.at(-1) as Record<string, unknown>).parameters,
      args.parameters,
      'the request goes to POST /api/v1/optimize',
    );
    assert.deepEqual(
      res.progress.map((p) => [p.progress, p.total, p.message]),
      [
        [0, 3, '0 of 3 trials'],
        [1, 3, '1 of 3 trials: trials'],
        [2, 3, '2 of 3 trials: trials'],
        [3, 3, '3 of 3 trials: trials'],
      ],
    );
    assert.deepEqual(res.data, JSON.parse(JSON.stringify(OPTIMIZED)));
    assert.equal(res.data.robustness.verdict, 'overfit');
    assert.deepEqual(res.data.robustness.reasons, robustnessReport('overfit').reasons);
    mode = 'cut';
    const cut = await callTool(client, 'optimize', args);
    assert.equal(cut.error?.code, 502);
    assert.match(cut.error!.error, /GET \/api\/v1\/optimize\/5 tells where it stands/);
    mode = 'ok';
    await client.close();
  });

  it('an error event is an error result carrying the event’s error; a stream cut short is a 502', async () => {
    mode = 'error';
    const client = await connect();
    const failed = await callTool(client, 'one_shot', { prompt: 'rsi' });
    assert.deepEqual(failed.error, { error: 'training failed: no trades' });
    assert.equal(failed.progress.at(-1)?.progress, 100);
    mode = 'cut';
    const cut = await callTool(client, 'one_shot', { prompt: 'rsi' });
    assert.equal(cut.error?.code, 502);
    assert.match(cut.error!.error, /ended without a result/);
    await client.close();
  });

  it('a refusal is an error result with the status, the message and the transport’s hint', async () => {
    mode = 'broke';
    const client = await connect();
    const res = await callTool(client, 'one_shot', { prompt: 'rsi' });
    assert.deepEqual(res.error, {
      error: 'out of credits: this call costs 10 and your balance is 0',
      code: 402,
      hint: 'get more credits somehow',
    });
    mode = 'ok';
    const deployed = await callTool(client, 'list_deployed');
    assert.equal(deployed.error?.code, 502, 'an answer out of shape is not passed on');
    assert.match(deployed.error!.error, /unexpected answer from GET \/api\/v1\/deployed: count/);
    await client.close();
  });

  it('ApiClient: a non-JSON refusal keeps its status and first line', async () => {
    const api = new ApiClient({ baseUrl: `${url}/`, key: async () => 'k' });
    await assert.rejects(api.generate({ description: 'x' }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 502);
      assert.equal(err.message, '<html>bad gateway</html>');
      return true;
    });
  });
});
