/**
 * checkModel's cost on a large honest model: an ExtraTrees of `--trees` (default 30) depth-16
 * trees fitted on `--rows` (default 300,000) rows of 20 noise features, exported by
 * src/sandbox/python/onnx_export.py (~40 MB, ~1 M tree nodes; --trees=150 gives the ~205 MB
 * model that is about the largest a 3 GiB train job can export, but its export needs 4 GB).
 * Reports the median wall and CPU time of `--runs` checks, MB/s, and the time that rate gives
 * for a file at the size bound.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkModel } from '../../src/scoring/index.ts';
import { MAX_MODEL_BYTES } from '../../src/scoring/model-check/bounds.ts';
import { numberOption, type Benchmark } from './lib/types.ts';

const EXPORT = `
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
from onnx_export import export_model
from sklearn.ensemble import ExtraTreesClassifier
rows, trees = int(sys.argv[2]), int(sys.argv[3])
rng = np.random.RandomState(0)
X = rng.rand(rows, 20).astype(np.float32).astype(np.float64)
y = (rng.rand(rows) > 0.5).astype(np.int64)
m = ExtraTreesClassifier(n_estimators=trees, max_depth=16, n_jobs=2, random_state=0).fit(X, y)
open(sys.argv[4], "wb").write(export_model(m, 20))
print(sum(e.tree_.node_count for e in m.estimators_))
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export const benchmark: Benchmark = {
  name: 'model-check',
  description: 'checkModel on a large honest ExtraTrees model: median wall and CPU ms, MB/s (--rows, --trees, --runs)',
  async run(ctx) {
    const rows = numberOption(ctx, 'rows', 300_000);
    const trees = numberOption(ctx, 'trees', 30);
    const runs = numberOption(ctx, 'runs', 5);
    const dir = mkdtempSync(join(tmpdir(), 'bench-model-check-'));
    ctx.defer(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'model.onnx');
    ctx.log(`exporting ExtraTrees(${trees}) on ${rows} rows`);
    const python = join(import.meta.dirname, '..', '..', 'src', 'sandbox', 'python');
    const nodes = Number(
      execFileSync('/usr/bin/python3', ['-c', EXPORT, python, String(rows), String(trees), file], { encoding: 'utf8' }).trim(),
    );
    const bytes = readFileSync(file);
    checkModel(bytes); // warm-up, and it must pass
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs && !ctx.signal.aborted; i++) {
      const c = process.cpuUsage();
      const t = performance.now();
      checkModel(bytes);
      wall.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
    }
    const mb = bytes.length / 1e6;
    const ms = median(wall);
    return [
      {
        name: 'large-honest-extratrees',
        model_mb: round(mb),
        tree_nodes: nodes,
        runs: wall.length,
        wall_ms_median: round(ms),
        cpu_ms_median: round(median(cpu)),
        mb_per_s: round(mb / (ms / 1000)),
        ms_at_size_bound: Math.round((MAX_MODEL_BYTES / 1e6 / mb) * ms),
      },
    ];
  },
};
