import { StaleRevisionError, type JsonKv } from '../bus/index.ts';
import { userKeysFilter, userNameKey } from '../lib/user-keys.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import type { Buckets } from '../../schemas/messages.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export type DeploymentsKv = JsonKv<typeof Buckets.deployments.schema>;

/** The KV key of a user's deployment of a model: one deployment per model. */
export const deploymentKey = (userId: number, modelName: string): string => userNameKey(userId, modelName);

/** A deployment that appeared, changed (a redeploy: a new deployment id) or went away. */
export interface DeploymentChange {
  previous: DeploymentRecord | null;
  current: DeploymentRecord | null;
}

/** Every deployment as it is now, kept by a KV watch. */
export interface DeploymentIndex {
  get(deploymentId: string): DeploymentRecord | undefined;
  all(): DeploymentRecord[];
  stop(): void;
}

/**
 * The one view of deployments (desired state in `sf_deployments`): the deploy API, the actor
 * hosts, the delivery actor and the delivery API all read them here, and only here is the key
 * format known.
 */
export class DeploymentsView {
  private readonly clock: Clock;

  constructor(
    readonly kv: DeploymentsKv,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  /** A user's deployments, oldest first. */
  async ofUser(userId: number): Promise<DeploymentRecord[]> {
    const keys = await this.kv.keys(userKeysFilter(userId));
    const records = await Promise.all(keys.map((k) => this.kv.get(k)));
    return records.flatMap((r) => (r ? [r.value] : [])).sort((a, b) => a.created_at - b.created_at);
  }

  /** The deployment of the user's model (by display name); null when it is not deployed. */
  async ofModel(userId: number, modelName: string): Promise<DeploymentRecord | null> {
    return (await this.kv.get(deploymentKey(userId, modelName)))?.value ?? null;
  }

  /** The user's deployment of a model named by stem or display name; null when none. */
  async find(userId: number, name: string): Promise<DeploymentRecord | null> {
    const deployments = await this.ofUser(userId);
    return deployments.find((d) => d.stem === name) ?? deployments.find((d) => d.model_name === name) ?? null;
  }

  /** Writes (or replaces) the deployment of its model. */
  async put(record: DeploymentRecord): Promise<void> {
    await this.kv.put(deploymentKey(record.user_id, record.model_name), record);
  }

  /**
   * Marks a deployment failed for good (DeploymentRecord.failure), so no host runs its actor
   * again. Only that deployment: false, and nothing written, when its model was undeployed or
   * deployed again (a new deployment id) meanwhile.
   */
  async markFailed(
    deployment: Pick<DeploymentRecord, 'user_id' | 'model_name' | 'deployment_id'>,
    reason: string,
    at = this.clock.now(),
  ): Promise<boolean> {
    const key = deploymentKey(deployment.user_id, deployment.model_name);
    for (;;) {
      const current = await this.kv.get(key);
      if (!current || current.value.deployment_id !== deployment.deployment_id) return false;
      if (current.value.failure) return true;
      try {
        await this.kv.update(key, { ...current.value, failure: { reason, at } }, current.revision);
        return true;
      } catch (err) {
        if (!(err instanceof StaleRevisionError)) throw err;
      }
    }
  }

  /** Removes the deployments under these keys (a user's set swapping them out); returns those that were there. */
  async removeKeys(keys: string[]): Promise<DeploymentRecord[]> {
    const removed: DeploymentRecord[] = [];
    for (const key of keys) {
      const found = await this.kv.get(key);
      if (!found) continue;
      await this.kv.delete(key);
      removed.push(found.value);
    }
    return removed;
  }

  /** Removes the deployment of the user's model; false when there was none. */
  async remove(userId: number, modelName: string): Promise<boolean> {
    const key = deploymentKey(userId, modelName);
    if (!(await this.kv.get(key))) return false;
    await this.kv.delete(key);
    return true;
  }

  /**
   * Follows every deployment: resolves once the existing ones are in the index; `onChange` hears
   * each change after that as well as each existing deployment while the index fills.
   */
  async follow(onChange: (change: DeploymentChange) => void = () => undefined): Promise<DeploymentIndex> {
    const byKey = new Map<string, DeploymentRecord>();
    const byId = new Map<string, DeploymentRecord>();
    const watch = await this.kv.watch((key, value) => {
      const previous = byKey.get(key) ?? null;
      if (previous) byId.delete(previous.deployment_id);
      if (value) {
        byKey.set(key, value);
        byId.set(value.deployment_id, value);
      } else byKey.delete(key);
      onChange({ previous, current: value });
    });
    await watch.ready;
    return { get: (id) => byId.get(id), all: () => [...byKey.values()], stop: () => watch.stop() };
  }
}
