/**
 * The trainer's choice of the next job: at most one running per user, the user served least
 * recently first, one user's jobs in queue order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WaitingRoom } from '../../../actors/trainer/waiting-room.ts';

let seq = 0;
const job = (userId: number, jobId: number) => ({ msg: `job ${jobId}`, jobId, userId, seq: ++seq });

describe('trainer waiting room', () => {
  it('starts one job per user, and another user’s job before the first user’s second', () => {
    const room = new WaitingRoom<string>(1);
    for (let j = 1; j <= 5; j++) room.add(job(1, j)); // user 1 queued five endless loops
    room.add(job(2, 6)); // then user 2 one job
    assert.equal(room.next()?.msg, 'job 1');
    assert.equal(room.next()?.msg, 'job 6', 'user 2 goes next, not user 1’s second job');
    assert.equal(room.next(), null, 'both users are at their limit');
    room.finished(1);
    assert.equal(room.next()?.msg, 'job 2', 'user 1 continues in queue order');
    assert.equal(room.size, 3);
  });

  it('goes round the users: the one served least recently first, a newcomer before both', () => {
    const room = new WaitingRoom<string>(1);
    for (let j = 1; j <= 3; j++) room.add(job(1, j));
    for (let j = 4; j <= 6; j++) room.add(job(2, j));
    assert.equal(room.next()?.msg, 'job 1');
    assert.equal(room.next()?.msg, 'job 4');
    room.finished(1);
    room.finished(2);
    room.add(job(3, 7)); // a third user arrives behind both backlogs
    const order = [room.next()?.msg, room.next()?.msg];
    assert.deepEqual(order, ['job 7', 'job 2'], 'the newcomer first, then user 1 (served before user 2)');
    room.finished(3);
    assert.equal(room.next()?.msg, 'job 5');
  });

  it('lets a user run more at once when its limit allows', () => {
    const room = new WaitingRoom<string>(2);
    for (let j = 1; j <= 3; j++) room.add(job(1, j));
    assert.equal(room.next()?.msg, 'job 1');
    assert.equal(room.next()?.msg, 'job 2');
    assert.equal(room.next(), null);
  });

  it('knows what it holds, and hands everything back when drained', () => {
    const room = new WaitingRoom<string>(1);
    room.add(job(1, 1));
    room.add(job(1, 2));
    assert.ok(room.holds(2));
    assert.deepEqual(room.messages(), ['job 1', 'job 2']);
    assert.deepEqual(room.drain(), ['job 1', 'job 2']);
    assert.equal(room.size, 0);
    assert.equal(room.holds(2), false);
  });
  it('serves a penalized user only when nothing else runs and nobody else waits', () => {
    const room = new WaitingRoom<string>(1, (userId) => userId === 1);
    room.add(job(1, 1)); // user 1 overran lately; queued first
    room.add(job(2, 2));
    assert.equal(room.next()?.msg, 'job 2', 'the other user first, though queued later');
    assert.equal(room.next(), null, 'not beside a running job');
    room.add(job(3, 3));
    room.finished(2);
    assert.equal(room.next()?.msg, 'job 3', 'nobody else may wait either');
    room.finished(3);
    assert.equal(room.next()?.msg, 'job 1', 'served once the trainer is idle');
    room.add(job(2, 4));
    assert.equal(room.next()?.msg, 'job 4', 'another user still starts beside it (the job runs at nice 19)');
  });
});
