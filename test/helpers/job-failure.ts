import assert from 'node:assert/strict';
import { StrategyJobError } from '../../src/sandbox/index.ts';

/** The StrategyJobError a sandbox job failed with; fails the test when it succeeded or threw anything else. */
export async function jobFailure(job: Promise<unknown>): Promise<StrategyJobError> {
  try {
    await job;
  } catch (err) {
    assert.ok(err instanceof StrategyJobError, String(err));
    return err;
  }
  assert.fail('the job should have failed');
}
