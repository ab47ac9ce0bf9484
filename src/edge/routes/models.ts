import type { Training } from '../../training/index.ts';
import {
  DeletedModel,
  ModelCode,
  ModelList,
  ModelParams,
  PredictRequest,
  PredictResponse,
  Results,
  ResultsParams,
  SignalsResponse,
} from '../../../schemas/training.ts';
import { requireUser } from '../plugins/auth.ts';
import { plainJsonSerializer, sendJsonText } from '../plugins/fast-serializer.ts';
import type { App } from '../types.ts';

const NAMES =
  'Models are named by stem (`<user_id>_<SYMBOL>_<timeframe>_<model_name>`) or by model_name; an unknown name, or another user’s model, is 404.';

export function modelRoutes(app: App, { training }: { training: Training }): void {
  app.get('/api/v1/models', {
    config: { auth: 'key' },
    schema: { tags: ['models'], summary: 'Your trained models with their train and test stats', response: { 200: ModelList } },
    handler: async (request) => training.list(requireUser(request).user_id),
  });

  app.delete('/api/v1/models/:name', {
    config: { auth: 'key' },
    schema: {
      tags: ['models'],
      summary: 'Delete a model (its ONNX file, strategy code and results); a deployment of it is stopped',
      description: NAMES,
      params: ModelParams,
      response: { 200: DeletedModel },
    },
    handler: async (request) => training.delete(requireUser(request).user_id, request.params.name),
  });

  app.get('/api/v1/models/:name/code', {
    config: { auth: 'key' },
    schema: {
      tags: ['models'],
      summary: 'The strategy code a model of yours was trained from',
      description: `${NAMES} The code is private: only its owner reads it here (a community entry's frozen copy leaves only through POST /fork).`,
      params: ModelParams,
      response: { 200: ModelCode },
    },
    handler: async (request) => training.code(requireUser(request).user_id, request.params.name),
  });

  app.get('/api/v1/results/:model', {
    config: { auth: 'key' },
    ...plainJsonSerializer,
    schema: {
      tags: ['models'],
      summary: 'Full backtest results of a model',
      description:
        `${NAMES} metrics (train, test, long, short TradeStats), trade_log (train and test trades with period), ` +
        'equity_curve and drawdown (test span), confusion_matrix, feature_importance, rolling_accuracy, and the ' +
        'post-cutoff pred_trade_log / pred_signals / pred_stats (bars after end_date). Field meanings are in the schema.',
      params: ResultsParams,
      response: { 200: Results },
    },
    handler: async (request, reply) =>
      sendJsonText<Results>(reply, await training.resultsJson(requireUser(request).user_id, request.params.model)),
  });

  app.post('/api/v1/predict', {
    config: { auth: 'key' },
    schema: {
      tags: ['models'],
      summary: 'Score a model over a span of bars, as live would',
      description:
        `${NAMES} Features are computed on the span plus the model’s warm-up bars before it, scored with the ONNX ` +
        'model, turned into signals and traded by the same position engine as the backtest. Default span: after the ' +
        'trained span to the latest bar; at most 50,000 bars. The signals become the model’s GET /signals. Costs 0 credits. ' +
        'The strategy runtime is shared fairly between keys (one job of a key at a time, the next free worker to the key served least recently; ' +
        'a strategy that overran its time budget runs at the lowest priority for 10 minutes): with 16 calls of a key already waiting, another is 429 with Retry-After.',
      body: PredictRequest,
      response: { 200: PredictResponse },
    },
    handler: async (request) => training.predict(requireUser(request).user_id, request.body),
  });

  app.get('/api/v1/signals/:model', {
    config: { auth: 'key' },
    schema: {
      tags: ['models'],
      summary: 'The model’s latest prediction signals',
      description: `${NAMES} The post-cutoff signals of its training, replaced by each POST /predict.`,
      params: ResultsParams,
      response: { 200: SignalsResponse },
    },
    handler: async (request) => training.signals(requireUser(request).user_id, request.params.model),
  });
}
