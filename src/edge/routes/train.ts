import type { Training } from '../../training/index.ts';
import { JobIdParams, JobView, TrainRejected, TrainRequest, TrainStart } from '../../../schemas/training.ts';
import { requireUser } from '../plugins/auth.ts';
import type { App } from '../types.ts';

export function trainRoutes(app: App, { training }: { training: Training }): void {
  app.post('/api/v1/train', {
    config: { auth: 'key' },
    schema: {
      tags: ['training'],
      summary: 'Train and backtest strategy code (returns at once; poll the job)',
      description:
        'Takes the market from the body, else from the code’s `# signalforge: symbol=… timeframe=…` header line, else ' +
        'EURUSD 15min (the answer’s `market` says which); a body symbol other than the header’s is 400. Checks the code ' +
        '(400 with `violations`: line, col, rule, hint for each) and the bars between the dates (400 when fewer than 300 or more than ' +
        '400,000), then counts one training-compute run (100 per UTC day, 429 beyond) and queues the job. ' +
        'The trainer runs the look-ahead check and warm-up search, fits the model in the sandbox, exports it to ONNX and ' +
        'backtests what the ONNX model signals: train span (in-sample), test span (out-of-sample, after a purge gap of ' +
        'target_horizon bars) and any bars after end_date (post-cutoff). The first `warmup` bars of the span only feed ' +
        'the features. Costs 0 credits. Status: queued → running → done | failed.',
      body: TrainRequest,
      response: { 200: TrainStart, 400: TrainRejected },
    },
    handler: async (request) => training.submit(requireUser(request), request.body),
  });

  app.get('/api/v1/train/:job_id', {
    config: { auth: 'key' },
    schema: {
      tags: ['training'],
      summary: 'Status of a train job',
      description:
        'queued → running (with `stage`) → done (train_stats, test_stats, long_stats, short_stats) or failed (`error`). ' +
        'A job whose trainer stops is handed out again; after two interrupted attempts it fails with the reason. ' +
        'Another user’s job is 404.',
      params: JobIdParams,
      response: { 200: JobView },
    },
    handler: async (request) => training.job(requireUser(request).user_id, request.params.job_id),
  });
}
