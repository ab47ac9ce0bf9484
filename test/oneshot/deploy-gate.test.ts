/** deploy_if against a verdict: who goes live, and what a trader is told when a model does not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldBack, verdictStep } from '../../src/oneshot/deploy-gate.ts';
import { OVERFIT_REASON, robustnessReport } from '../helpers/robustness-report.ts';

const STEM = '7_EURUSD_15min_Model 1';

describe('deploy_if', () => {
  it('always deploys, whatever the verdict, and with none', () => {
    for (const verdict of ['robust', 'inconclusive', 'overfit'] as const)
      assert.equal(heldBack('always', robustnessReport(verdict), STEM, 9), null);
    assert.equal(heldBack('always', undefined, STEM, 9), null);
  });

  it('not_overfit holds back only an overfit verdict; robust holds back all but a robust one', () => {
    const live = (deployIf: 'not_overfit' | 'robust', verdict: 'robust' | 'inconclusive' | 'overfit') =>
      heldBack(deployIf, robustnessReport(verdict), STEM, 9) === null;
    assert.deepEqual(
      [live('not_overfit', 'robust'), live('not_overfit', 'inconclusive'), live('not_overfit', 'overfit')],
      [true, true, false],
    );
    assert.deepEqual([live('robust', 'robust'), live('robust', 'inconclusive'), live('robust', 'overfit')], [true, false, false]);
  });

  it('a model without a verdict falls short of both guards, and the reason says so', () => {
    assert.match(heldBack('not_overfit', undefined, STEM, 9)!, /no robustness verdict/);
    assert.match(heldBack('robust', undefined, STEM, 9)!, /no robustness verdict/);
  });

  it('the reason names the verdict, its reasons, the guard, where the model is and how to deploy it anyway, and the refund', () => {
    const reason = heldBack('not_overfit', robustnessReport('overfit'), STEM, 9)!;
    assert.ok(reason.includes(OVERFIT_REASON));
    assert.match(reason, /verdict is overfit/);
    assert.match(reason, /deploy_if is not_overfit/);
    assert.ok(reason.includes(`GET /api/v1/results/${STEM}`));
    assert.match(reason, /POST \/api\/v1\/deploy/);
    assert.match(reason, /fee was refunded/);
    assert.doesNotMatch(
      heldBack('not_overfit', robustnessReport('overfit'), STEM, 0)!,
      /refunded/,
      'with your own code nothing was charged, so nothing is refunded',
    );
  });

  it('the step says an overfit verdict as a warning with its reasons, and what deploy_if would do about it', () => {
    const always = verdictStep(robustnessReport('overfit'), 'always');
    assert.match(always, /^warning: this model looks overfit/);
    assert.ok(always.includes(OVERFIT_REASON));
    assert.match(always, /deploying anyway.*not_overfit/);
    assert.doesNotMatch(verdictStep(robustnessReport('overfit'), 'not_overfit'), /deploying anyway/);
    assert.match(verdictStep(robustnessReport('robust'), 'always'), /^robustness verdict robust/);
  });
});
