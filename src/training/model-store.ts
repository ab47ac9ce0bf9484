import { openBlobStore, type BlobStore, type Bus, type JsonKv } from '../bus/index.ts';
import { userKeysFilter, userNameKey } from '../lib/user-keys.ts';
import type { Buckets } from '../../schemas/messages.ts';
import { ObjectStores } from '../../schemas/messages.ts';
import type { ModelRecord, Results, SignalsResponse } from '../../schemas/training.ts';

type Models = JsonKv<typeof Buckets.models.schema>;
type Signals = JsonKv<typeof Buckets.signals.schema>;

/** The files kept per trained model. */
export interface ModelArtifacts {
  onnx: Uint8Array;
  code: string;
  results: Results;
}

/** The KV key of a user's model (`sf_models`, `sf_signals`) and the prefix of its artifacts. */
const modelKey = (userId: number, modelName: string): string => userNameKey(userId, modelName);

export const modelStem = (userId: number, symbol: string, timeframe: string, modelName: string): string =>
  `${userId}_${symbol}_${timeframe}_${modelName}`;

/**
 * Trained models: the record in KV (`sf_models`), the artifacts (ONNX, strategy code, results)
 * in the JetStream object store under a per-training prefix, so a retrain under the same name
 * never mixes old and new files.
 */
export class ModelStore {
  private constructor(
    private readonly models: Models,
    private readonly signals: Signals,
    private readonly objects: BlobStore,
  ) {}

  static async open(bus: Bus, models: Models, signals: Signals, replicas = 1): Promise<ModelStore> {
    return new ModelStore(models, signals, await openBlobStore(bus, ObjectStores.artifacts, replicas));
  }

  private static path(record: Pick<ModelRecord, 'user_id' | 'model_name' | 'artifact'>, file: string): string {
    return `${modelKey(record.user_id, record.model_name)}/${record.artifact}/${file}`;
  }

  /** Stores the artifacts, then the record (the record is what makes a model visible). */
  async save(record: ModelRecord, artifacts: ModelArtifacts): Promise<ModelRecord | null> {
    await this.objects.put(ModelStore.path(record, 'model.onnx'), artifacts.onnx);
    await this.objects.put(ModelStore.path(record, 'strategy.py'), Buffer.from(artifacts.code, 'utf8'));
    await this.objects.put(ModelStore.path(record, 'results.json'), Buffer.from(JSON.stringify(artifacts.results), 'utf8'));
    const key = modelKey(record.user_id, record.model_name);
    const previous = await this.models.get(key);
    await this.models.put(key, record);
    await this.signals.put(key, {
      model: record.stem,
      count: artifacts.results.pred_signals.length,
      updated_at: new Date(record.trained_at).toISOString(),
      signals: artifacts.results.pred_signals,
    });
    if (previous && previous.value.artifact !== record.artifact) await this.removeArtifacts(previous.value);
    return previous?.value ?? null;
  }

  async list(userId: number): Promise<ModelRecord[]> {
    const keys = await this.models.keys(userKeysFilter(userId));
    const records = await Promise.all(keys.map((k) => this.models.get(k)));
    return records.flatMap((r) => (r ? [r.value] : [])).sort((a, b) => b.trained_at - a.trained_at);
  }

  /**
   * A user's model by stem or display name; null when the user has none by that name (a stem
   * naming another user's model is just an unknown name here).
   */
  async resolve(userId: number, name: string): Promise<ModelRecord | null> {
    const byName = await this.models.get(modelKey(userId, name));
    if (byName) return byName.value;
    const stem = /^(\d+)_[A-Z]{6}_(?:1min|5min|15min|1h)_(.+)$/.exec(name);
    if (!stem || Number(stem[1]) !== userId) return null;
    const record = (await this.models.get(modelKey(userId, stem[2]!)))?.value ?? null;
    return record && record.stem === name ? record : null;
  }

  async onnx(record: ModelRecord): Promise<Uint8Array> {
    return this.blob(record, 'model.onnx');
  }

  async code(record: ModelRecord): Promise<string> {
    return Buffer.from(await this.blob(record, 'strategy.py')).toString('utf8');
  }

  /** results.json as stored (already validated when it was built): served as-is. */
  async resultsJson(record: ModelRecord): Promise<string> {
    return Buffer.from(await this.blob(record, 'results.json')).toString('utf8');
  }

  async latestSignals(record: ModelRecord): Promise<SignalsResponse | null> {
    return (await this.signals.get(modelKey(record.user_id, record.model_name)))?.value ?? null;
  }

  async putSignals(record: ModelRecord, signals: SignalsResponse): Promise<void> {
    await this.signals.put(modelKey(record.user_id, record.model_name), signals);
  }

  /** Removes the record first (the model disappears at once), then its files and signals. */
  async delete(record: ModelRecord): Promise<void> {
    const key = modelKey(record.user_id, record.model_name);
    await this.models.delete(key);
    await this.signals.delete(key);
    await this.removeArtifacts(record);
  }

  private async removeArtifacts(record: ModelRecord): Promise<void> {
    for (const file of ['model.onnx', 'strategy.py', 'results.json']) {
      await this.objects.delete(ModelStore.path(record, file)).catch(() => undefined);
    }
  }

  private async blob(record: ModelRecord, file: string): Promise<Uint8Array> {
    const data = await this.objects.get(ModelStore.path(record, file));
    if (!data) throw new Error(`model ${record.stem}: ${file} is missing from the artifact store`);
    return data;
  }
}
