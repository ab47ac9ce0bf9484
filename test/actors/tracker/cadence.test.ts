/**
 * Which bars advance which entries: programs with a warm session on every bar; the others take
 * turns so that a bar starts about `maxPoolJobsPerBar` pool jobs, each program once every K bars.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { Cadence } from '../../../actors/tracker/index.ts';

const QUARTER = 15 * 60_000;
const program = (k: number) => `community:${createHash('sha256').update(`program ${k}`).digest('hex')}`;
const T0 = Date.UTC(2017, 1, 13, 9);

describe('Cadence', () => {
  it('advances entries of a warm program on every bar', () => {
    const cadence = new Cadence({ coldPrograms: 1000 }, 4);
    for (let b = 0; b < 10; b++) assert.equal(cadence.due({ program: program(1), warm: true }, T0 + b * QUARTER, QUARTER), true);
  });

  it('spreads cold programs over K = ⌈cold / max⌉ bars: each once per K bars, about max per bar', () => {
    const cold = { coldPrograms: 480 };
    const cadence = new Cadence(cold, 16);
    assert.equal(cadence.every(T0), 30);
    const programs = Array.from({ length: 480 }, (_, k) => ({ program: program(k), warm: false }));
    const perBar: number[] = [];
    const seen = new Map<string, number>();
    for (let b = 0; b < 30; b++) {
      const due = programs.filter((p) => cadence.due(p, T0 + b * QUARTER, QUARTER));
      perBar.push(due.length);
      for (const p of due) seen.set(p.program, (seen.get(p.program) ?? 0) + 1);
    }
    assert.equal(seen.size, 480, 'every program had its turn');
    assert.ok(
      [...seen.values()].every((n) => n === 1),
      'once in K bars',
    );
    assert.equal(
      perBar.reduce((a, b) => a + b, 0),
      480,
    );
    assert.ok(Math.max(...perBar) <= 40, `about 16 a bar (${perBar.join(' ')})`);
  });

  it('follows the number of cold programs as it changes, and 0 means every bar', () => {
    const cold = { coldPrograms: 8 };
    const cadence = new Cadence(cold, 16);
    assert.equal(cadence.every(T0), 1);
    assert.equal(cadence.due({ program: program(3), warm: false }, T0, QUARTER), true);
    cold.coldPrograms = 40;
    assert.equal(cadence.every(T0), 1, 'fixed for the bar being handled');
    assert.equal(cadence.every(T0 + QUARTER), 3);
    const unlimited = new Cadence({ coldPrograms: 5000 }, 0);
    assert.equal(unlimited.due({ program: program(3), warm: false }, T0, QUARTER), true);
  });
});
