/**
 * The one_shot recovery on a real nats-server, two processes (each its own connection, run store
 * and recovery; one lease host each): the process that drives a run holds its lease
 * `oneshot.<run_id>`, and the other leaves the run alone however old it is; once the first dies
 * without a goodbye (its claims expire with its heartbeat), the other takes the lease over,
 * resumes the run and finishes it — once, never two resumes at once — and the lease goes with
 * the finished run. A process whose own pipeline leaves a run unfinished resumes it itself.
 * Training, deployments and metering are stand-ins that count what is asked of them: the train
 * job finishes when the test says so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectBus, startEmbeddedNats, type Bus, type EmbeddedNats } from '../../src/bus/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { OneShotRuns } from '../../src/oneshot/index.ts';
import type { OutcomeDeps } from '../../src/oneshot/outcome.ts';
import { leaseOf, OneShotRecovery } from '../../src/oneshot/recovery.ts';
import type { DeployResponse } from '../../schemas/live.ts';
import type { JobView } from '../../schemas/training.ts';
import { log, until } from '../helpers/nats.ts';

const FEE = 9;

/** What the recoveries finish runs against: train jobs the test finishes, and counts of deploys, refunds and concurrent resumes. */
function world() {
  const done = new Map<number, () => void>();
  const finishedJobs = new Set<number>();
  const deployed = new Map<string, string>();
  const counts = { deploys: 0, refunds: 0, waiting: 0, mostWaiting: 0 };
  const view = (jobId: number): JobView =>
    (finishedJobs.has(jobId)
      ? { job_id: jobId, status: 'done', test_stats: { n: 3, ret: 0.01 }, train_stats: { n: 9, ret: 0.02 } }
      : { job_id: jobId, status: 'running' }) as unknown as JobView;
  const deps: Omit<OutcomeDeps, 'runs'> = {
    training: {
      job: async (_user, jobId) => view(jobId),
      finished: (_user, jobId) => {
        counts.waiting++;
        counts.mostWaiting = Math.max(counts.mostWaiting, counts.waiting);
        return new Promise<JobView>((resolve) => {
          const finish = () => resolve(view(jobId));
          if (finishedJobs.has(jobId)) finish();
          else done.set(jobId, finish);
        }).finally(() => counts.waiting--);
      },
    },
    jobs: { update: async () => undefined as never },
    deployments: {
      find: async (_user, stem) => {
        const id = deployed.get(stem);
        if (!id) throw new Error(`model "${stem}" is not deployed`);
        return { deployment_id: id } as never;
      },
      deploy: async (_caller, request) => {
        counts.deploys++;
        const id = `dep_${counts.deploys}`;
        deployed.set(request.model_name, id);
        return { deployment_id: id, channels: request.channels } as unknown as DeployResponse;
      },
    },
    metering: {
      refund: async () => {
        counts.refunds++;
        return 0 as never;
      },
    },
    log,
    pollMs: 100,
  };
  return {
    deps,
    counts,
    /** The train job finishes (a resume waiting for it goes on to the deploy). */
    finish(jobId: number) {
      finishedJobs.add(jobId);
      done.get(jobId)?.();
    },
  };
}

describe('one_shot recovery: one lease per run across processes', () => {
  let dir: string;
  let nats: EmbeddedNats;
  const buses: Bus[] = [];
  const recoveries: OneShotRecovery[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sf-oneshot-recovery-'));
    nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  });
  after(async () => {
    await Promise.all(recoveries.map((r) => r.stop()));
    await Promise.all(buses.map((b) => b.close()));
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A process: its own connection, run store and recovery; `clock` says how old runs look to its recovery. */
  const processOf = async (name: string, w: ReturnType<typeof world>, clock?: ReplayClock) => {
    const bus = await connectBus(nats.url, name, log);
    buses.push(bus);
    const runs = await OneShotRuns.open(bus, 1);
    const recovery = new OneShotRecovery({ ...w.deps, runs, ...(clock ? { clock } : {}), renewMs: 500 });
    recoveries.push(recovery);
    await recovery.start();
    return { runs, recovery };
  };

  const trainingRun = (runs: OneShotRuns, runId: string, jobId: number) =>
    runs.create({
      run_id: runId,
      user_id: 7,
      username: 'trader',
      plan: 'free',
      status: 'training',
      fee: FEE,
      channels: ['sse'],
      deploy_if: 'always',
      webhook_url: null,
      messenger_chat_id: null,
      job_id: jobId,
      model_stem: `m_${jobId}`,
      deployment_id: null,
      reason: null,
    });

  it('the driver holds its run; the other process takes it over only once the driver is gone, resumes it, and finishes it once', async () => {
    const w = world();
    const a = await processOf('a', w);
    const clockB = new ReplayClock(Date.now());
    const b = await processOf('b', w, clockB);
    const runId = OneShotRuns.newId();
    a.recovery.track(runId);
    await trainingRun(a.runs, runId, 1);
    await until('a to hold the run it drives', async () => (await a.recovery.reconcile(), a.recovery.held().includes(runId)));
    // To b the run now looks a minute old: only the driver's lease keeps b off it.
    clockB.advanceTo(Date.now() + 60_000);
    await b.recovery.reconcile();
    assert.deepEqual(b.recovery.held(), [], 'b leaves a run its driver holds alone');
    assert.equal(w.counts.waiting, 0, 'nobody resumes it');

    // a dies without a goodbye: its claim lives until its heartbeat expires, then b takes the run over.
    await a.recovery.stop();
    await until('b to take the run over and resume it', () => b.recovery.held().includes(runId) && w.counts.waiting === 1);
    w.finish(1);
    await until('the run to be deployed', async () => (await b.runs.get(runId))?.status === 'deployed');
    assert.equal(w.counts.deploys, 1, 'deployed once');
    assert.equal(w.counts.refunds, 0, 'nothing refunded');
    assert.equal(w.counts.mostWaiting, 1, 'never two resumes at once');
    await until('the finished run’s lease to be released', async () => (await b.runs.claims.leases.get(leaseOf(runId))) === null);
    assert.deepEqual(b.recovery.held(), []);
    await b.recovery.stop();
  });

  it('a run its own pipeline leaves unfinished is resumed by the same process, once', async () => {
    const w = world();
    const clock = new ReplayClock(Date.now());
    const a = await processOf('c', w, clock);
    const runId = OneShotRuns.newId();
    const untrack = a.recovery.track(runId);
    await trainingRun(a.runs, runId, 2);
    await until('a to hold the run it drives', async () => (await a.recovery.reconcile(), a.recovery.held().includes(runId)));
    assert.equal(w.counts.waiting, 0, 'driven, not resumed');

    // Its pipeline gives it up mid-way (NATS was away), when the run is a minute old: the recovery here resumes it.
    clock.advanceTo(Date.now() + 60_000);
    untrack();
    await until('the run to be resumed', () => w.counts.waiting === 1);
    w.finish(2);
    await until('the run to be deployed', async () => (await a.runs.get(runId))?.status === 'deployed');
    assert.equal(w.counts.deploys, 1);
    assert.equal(w.counts.mostWaiting, 1);
  });
});
