/**
 * For the tests of a host (model actors, the live tracker) handed a model that fails the safety
 * check: the hostile model corpus (test/scoring/hostile-models/generate.py) written to a temp dir,
 * and the bars and strategy runtime of a host that never computes features.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FeatureRuntime } from '../../src/scoring/index.ts';

/** The corpus's models by name (`model('external_data')`); `remove()` deletes the temp dir. */
export function hostileModels(prefix: string): { model(name: string): Uint8Array; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  execFileSync('/usr/bin/python3', [join(import.meta.dirname, '../scoring/hostile-models/generate.py'), dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    model: (name) => new Uint8Array(readFileSync(join(dir, `${name}.onnx`))),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A bar store with no bars. */
export const noBars = () => ({
  ts: new Float64Array(0),
  open: new Float64Array(0),
  high: new Float64Array(0),
  low: new Float64Array(0),
  close: new Float64Array(0),
  volume: new Float64Array(0),
  spread: new Float64Array(0),
  ticks: new Uint32Array(0),
  source: new Uint8Array(0),
});

/** With no bars no features are computed: the runtime is never asked. */
export const noRuntime = {
  openSession: () => Promise.reject(new Error('no bars: no feature session is opened in this test')),
  features: () => Promise.reject(new Error('no bars: no features are computed in this test')),
} as unknown as FeatureRuntime;
