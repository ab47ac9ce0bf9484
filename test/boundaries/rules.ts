/**
 * The layering of ../shared/DESIGN.md as data, and the checks over an import graph: no cycle
 * between files or between folders, every import allowed by the "may import" table, a folder
 * with an `index.ts` entered only through it, the raw NATS client only inside src/bus, and the
 * units that must never load another (NEVER_REACHES: the live scoring path never loads src/pine).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importEdges, type ImportEdge } from './imports.ts';

/** Where the checked sources live (tests, benches and bin/ may import anything). */
export const SOURCE_DIRS = ['schemas', 'src', 'actors'] as const;

/** Leaves every layer may use: the schemas, small helpers, errors, logging, the config type. */
const BASE = ['schemas', 'src/lib', 'src/errors.ts', 'src/log.ts', 'src/config.ts'];
/** What "domain modules" means for actors and the edge. */
const DOMAIN = [
  'src/market',
  'src/indicators',
  'src/generation',
  'src/scoring',
  'src/backtest',
  'src/training',
  'src/deployments',
  'src/accounts',
  'src/community',
  'src/delivery',
  'src/oneshot',
  'src/payouts',
  'src/robustness',
  'src/optimize',
];

/**
 * unit → the other units it may import. A unit is a folder of src/ or actors/, a single file
 * directly in src/, or schemas/. `*` = anything (the composition root).
 */
export const MAY_IMPORT: Record<string, readonly string[] | '*'> = {
  schemas: [],
  'src/lib': ['schemas'],
  'src/errors.ts': ['schemas', 'src/lib'],
  'src/log.ts': ['schemas', 'src/lib'],
  'src/config.ts': ['schemas', 'src/lib'],
  'src/run-file.ts': BASE,
  'src/bus': BASE,
  'src/store': BASE,
  // ClickHouse over NATS: the owner of chdb answers, roles without CLICKHOUSE_URL ask.
  'src/store-link': [...BASE, 'src/bus', 'src/store'],
  'src/kernel': [...BASE, 'src/bus', 'src/store'],
  'src/market': [...BASE, 'src/bus', 'src/store', 'src/run-file.ts'],
  'src/indicators': BASE,
  // The Pine language: its ta.* built-ins share the registry's rules (src/indicators/math.ts).
  'src/pine': [...BASE, 'src/indicators'],
  'src/sandbox': ['schemas', 'src/errors.ts', 'src/log.ts', 'src/lib'],
  'src/backtest': ['schemas', 'src/lib'],
  // Is the edge real? Statistics over backtests: pure, on the position engine's runs.
  'src/robustness': ['schemas', 'src/lib', 'src/backtest'],
  'src/scoring': [...BASE, 'src/sandbox', 'src/backtest', 'src/market', 'src/indicators'],
  'src/generation': [...BASE, 'src/indicators', 'src/pine', 'src/sandbox', 'src/accounts'],
  'src/training': [
    ...BASE,
    'src/scoring',
    'src/sandbox',
    'src/backtest',
    'src/robustness',
    'src/market',
    'src/bus',
    'src/store',
    'src/accounts',
  ],
  // Optimisation jobs: samplers in the sandbox, trials on the position engine, models saved through training.
  'src/optimize': [
    ...BASE,
    'src/scoring',
    'src/sandbox',
    'src/backtest',
    'src/robustness',
    'src/training',
    'src/market',
    'src/bus',
    'src/store',
    'src/accounts',
    'src/deployments',
  ],
  'src/deployments': [...BASE, 'src/bus'],
  'src/accounts': [...BASE, 'src/bus', 'src/store'],
  'src/community': [...BASE, 'src/bus', 'src/store'],
  'src/delivery': [...BASE, 'src/bus', 'src/deployments'],
  // The one_shot run's state is its own KV bucket (durable across a restart).
  'src/oneshot': [...BASE, 'src/bus', 'src/generation', 'src/training', 'src/deployments', 'src/accounts', 'src/kernel'],
  // Shutdown deadlines and readiness probes: helpers of the composition root.
  'src/lifecycle': BASE,
  // Fork revenue share: credits parents through the accounts' metering, on a clock from the kernel.
  'src/payouts': [...BASE, 'src/bus', 'src/store', 'src/accounts', 'src/kernel'],
  // Operator commands (admin plan): reach the installation's NATS like import-ticks does.
  'src/admin.ts': [...BASE, 'src/bus', 'src/accounts', 'src/run-file.ts'],
  'src/mcp': [...BASE, 'src/accounts'],
  'src/edge': [...BASE, ...DOMAIN, 'src/bus', 'src/store', 'src/mcp'],
  // One module per role (store, ingest, actors, delivery, trainer, edge), and serve: all of them in one process.
  'src/roles': '*',
  'src/cli.ts': '*',
};

/** Every actor folder: the kernel, the bus and the domain modules — never the edge, the store, or another actor. */
const ACTOR_MAY_IMPORT = [...BASE, 'src/kernel', 'src/bus', ...DOMAIN];
/** Named openly: the bar builder is the tick store's writer, batching ticks (TickColumns) into the store's TickWriter itself. */
const ACTOR_ALSO: Record<string, readonly string[]> = { 'actors/bar-builder': ['src/store'] };

/**
 * Units that must not load another at all: not directly, and not through any chain of imports
 * that the table above allows today or may allow tomorrow.
 */
export const NEVER_REACHES: readonly { from: string; to: string; why: string }[] = [
  // Every process that scores a bar loads these: the Pine interpreter is the custom-indicator route's alone.
  { from: 'src/scoring', to: 'src/pine', why: 'the live scoring path does not load the Pine interpreter' },
  { from: 'actors/model', to: 'src/pine', why: 'the live scoring path does not load the Pine interpreter' },
  { from: 'actors/tracker', to: 'src/pine', why: 'the live scoring path does not load the Pine interpreter' },
];

/**
 * Known breaks, each named exactly and with the reason it stands; a break not listed here fails.
 */
export const ACCEPTED: readonly { rule: Violation['rule']; message: string }[] = [];

export interface Violation {
  rule: 'file-cycle' | 'folder-cycle' | 'layering' | 'barrel' | 'nats-client' | 'unknown-unit' | 'reach';
  /** `file:line` of the offending import (for a cycle, one import on it). */
  at: string;
  message: string;
}

/** The unit a source path belongs to; null outside the checked sources. */
export function unitOf(path: string): string | null {
  const parts = path.split('/');
  if (parts[0] === 'schemas') return 'schemas';
  if (parts[0] === 'actors' && parts.length > 2) return `actors/${parts[1]}`;
  if (parts[0] === 'src') return parts.length === 2 ? path : `src/${parts[1]}`;
  return null;
}

function allowed(from: string, to: string): boolean {
  if (from.startsWith('actors/')) return ACTOR_MAY_IMPORT.includes(to) || (ACTOR_ALSO[from]?.includes(to) ?? false);
  const may = MAY_IMPORT[from];
  return may === '*' || (may !== undefined && may.includes(to));
}

const where = (e: ImportEdge) => `${e.from}:${e.line}`;
const withTs = (p: string) => (p.endsWith('.ts') ? p : `${p}.ts`);

/** Strongly connected components with more than one node (Tarjan), each as its nodes. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** Every boundary violation of the sources under `root`, less the accepted ones. */
export function checkBoundaries(root: string): Violation[] {
  return findViolations(root).filter((v) => !ACCEPTED.some((a) => a.rule === v.rule && a.message === v.message));
}

/** Every boundary violation of the sources under `root`. */
export function findViolations(root: string): Violation[] {
  const edges = importEdges(root, SOURCE_DIRS);
  const violations: Violation[] = [];
  const fileGraph = new Map<string, Set<string>>();
  const unitGraph = new Map<string, Set<string>>();
  const unitEdge = new Map<string, ImportEdge>();
  const link = (g: Map<string, Set<string>>, a: string, b: string) => (g.get(a) ?? g.set(a, new Set()).get(a)!).add(b);

  for (const e of edges) {
    const fromUnit = unitOf(e.from);
    if (!fromUnit) continue;
    if (!e.specifier.startsWith('.')) {
      if (e.to.startsWith('@nats-io/') && fromUnit !== 'src/bus') {
        violations.push({
          rule: 'nats-client',
          at: where(e),
          message: `${e.from} imports '${e.specifier}': only src/bus/ uses the NATS client (import what you need from src/bus/index.ts)`,
        });
      }
      continue;
    }
    const target = withTs(e.to);
    const toUnit = unitOf(target);
    if (!toUnit) {
      violations.push({
        rule: 'unknown-unit',
        at: where(e),
        message: `${e.from} imports '${e.specifier}' (${target}), outside schemas/, src/ and actors/`,
      });
      continue;
    }
    link(fileGraph, e.from, target);
    if (fromUnit === toUnit) continue;
    link(unitGraph, fromUnit, toUnit);
    if (!unitEdge.has(`${fromUnit}>${toUnit}`)) unitEdge.set(`${fromUnit}>${toUnit}`, e);
    if (!allowed(fromUnit, toUnit)) {
      violations.push({
        rule: 'layering',
        at: where(e),
        message: `${e.from} imports '${e.specifier}': ${fromUnit} may not import ${toUnit}`,
      });
    }
    const barrel = `${toUnit}/index.ts`;
    if (!toUnit.endsWith('.ts') && toUnit !== 'schemas' && target !== barrel && existsSync(join(root, barrel))) {
      violations.push({
        rule: 'barrel',
        at: where(e),
        message: `${e.from} imports '${e.specifier}' around ${barrel}: import it from there`,
      });
    }
  }

  for (const rule of NEVER_REACHES) {
    const chain = reachChain(fileGraph, rule.from, rule.to);
    if (!chain) continue;
    const first = edges.find((e) => e.from === chain[0] && withTs(e.to) === chain[1])!;
    violations.push({ rule: 'reach', at: where(first), message: `${rule.from} reaches ${rule.to} (${rule.why}): ${chain.join(' → ')}` });
  }

  for (const scc of cycles(fileGraph)) {
    const inCycle = new Set(scc);
    const e = edges.find((x) => inCycle.has(x.from) && inCycle.has(withTs(x.to)))!;
    violations.push({ rule: 'file-cycle', at: where(e), message: `import cycle between files: ${scc.join(' ⇄ ')}` });
  }
  for (const scc of cycles(unitGraph)) {
    const inCycle = new Set(scc);
    const hops = [...unitEdge.entries()].filter(([k]) => {
      const [a, b] = k.split('>');
      return inCycle.has(a!) && inCycle.has(b!);
    });
    violations.push({
      rule: 'folder-cycle',
      at: where(hops[0]![1]),
      message: `import cycle between folders ${scc.join(' ⇄ ')}: ${hops.map(([k, e]) => `${k.replace('>', ' → ')} (${where(e)} '${e.specifier}')`).join('; ')}`,
    });
  }
  return violations;
}

/**
 * The shortest chain of imports from a file of unit `from` to a file of unit `to` (breadth first,
 * files in name order: the same chain every time), or null when none exists.
 */
export function reachChain(fileGraph: ReadonlyMap<string, ReadonlySet<string>>, from: string, to: string): string[] | null {
  const cameFrom = new Map<string, string | null>();
  const queue = [...fileGraph.keys()].filter((f) => unitOf(f) === from).sort();
  for (const f of queue) cameFrom.set(f, null);
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    if (unitOf(file) === to) {
      const chain: string[] = [];
      for (let f: string | null = file; f !== null; f = cameFrom.get(f)!) chain.unshift(f);
      return chain;
    }
    for (const next of [...(fileGraph.get(file) ?? [])].sort()) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return null;
}
