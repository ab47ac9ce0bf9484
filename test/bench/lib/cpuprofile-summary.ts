/**
 * Reads a V8 .cpuprofile (from `npm run bench -- http-edge --cpu-prof=DIR`) and prints where the
 * time went, as JSON on stdout:
 *   node --import tsx test/bench/lib/cpuprofile-summary.ts FILE.cpuprofile [--after=auth.ts] [--top=25]
 * - by_area: self time grouped by package (node_modules/<pkg>), our source file, node internals,
 *   GC and idle;
 * - top_self: the functions with the most self time;
 * - inclusive: for each watched frame (the edge hooks, the zod serializer, pino), the share of
 *   busy time spent in it and everything it called.
 * --after=TEXT starts the count at the first sample whose stack has a frame whose URL or function
 * name contains TEXT (e.g. the first request), so start-up does not dilute the figures.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Frames whose inclusive time is reported: [label, predicate]. */
const WATCHED: Array<[string, (f: CallFrame) => boolean]> = [
  ['auth onRequest hook (src/edge/plugins/auth.ts)', (f) => f.url.endsWith('src/edge/plugins/auth.ts') && f.functionName === ''],
  ['  directory.authenticate (sha256 + maps)', (f) => f.functionName === 'authenticate' && f.url.includes('accounts/directory.ts')],
  ['  hashSecret (sha256)', (f) => f.functionName === 'hashSecret'],
  ['  limiter.take', (f) => f.functionName === 'take' && f.url.includes('rate-limiter.ts')],
  ['access-log onResponse hook (src/edge/app.ts)', (f) => f.url.endsWith('src/edge/app.ts') && f.functionName === ''],
  ['route handlers (src/edge/routes/*)', (f) => f.url.includes('src/edge/routes/')],
  ['error handler (src/edge/plugins/errors.ts)', (f) => f.url.includes('src/edge/plugins/errors.ts')],
  ['fastify-type-provider-zod (serializer/validator)', (f) => f.url.includes('fastify-type-provider-zod')],
  ['zod (any)', (f) => /node_modules\/zod\//.test(f.url)],
  ['pino (any)', (f) => /node_modules\/pino\//.test(f.url)],
  ['pino child() (per-request logger)', (f) => f.functionName === 'child' && /node_modules\/pino\//.test(f.url)],
  ['fastify (any)', (f) => /node_modules\/fastify\//.test(f.url)],
  ['fastify hooks runner', (f) => f.url.includes('fastify/lib/hooks.js')],
  ['fastify reply.send / serialize', (f) => f.url.includes('fastify/lib/reply.js')],
  ['node:_http_server (parse + write)', (f) => f.url.includes('_http_server')],
  ['node:net / stream writes', (f) => f.url.includes('node:net') || f.url.includes('internal/streams')],
];

function area(f: CallFrame): string {
  if (!f.url) {
    if (f.functionName.startsWith('(')) return f.functionName;
    return '(native)';
  }
  const nm = f.url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = f.url.slice(nm + 'node_modules/'.length).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const src = f.url.search(/\/(src|schemas)\//);
  if (src >= 0) return f.url.slice(src + 1);
  if (f.url.startsWith('node:'))
    return `node:${f.url.slice(5).split('/')[0] === 'internal' ? 'internal/' + f.url.split('/')[1] : f.url.slice(5)}`;
  return f.url;
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  process.stderr.write('usage: cpuprofile-summary.ts FILE.cpuprofile [--after=TEXT] [--top=N]\n');
  process.exit(2);
}
const after = args.find((a) => a.startsWith('--after='))?.slice(8);
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map<number, ProfileNode>();
const parent = new Map<number, number>();
for (const node of profile.nodes) {
  byId.set(node.id, node);
  for (const child of node.children ?? []) parent.set(child, node.id);
}
const stackOf = (id: number): ProfileNode[] => {
  const stack: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
  return stack;
};
const matches = (n: ProfileNode, text: string) => n.callFrame.url.includes(text) || n.callFrame.functionName.includes(text);

let startIndex = 0;
if (after) {
  startIndex = profile.samples.findIndex((id) => stackOf(id).some((n) => matches(n, after)));
  if (startIndex < 0) throw new Error(`no sample has a frame matching "${after}"`);
}

const selfByFn = new Map<string, number>();
const selfByArea = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let idle = 0;
for (let i = startIndex; i < profile.samples.length; i++) {
  // timeDeltas[i] is the time since the previous sample; attribute it to this sample.
  const dt = (profile.timeDeltas[i] ?? 0) / 1000;
  const node = byId.get(profile.samples[i]!)!;
  const f = node.callFrame;
  total += dt;
  if (f.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  const fnKey = `${f.functionName || '(anonymous)'} ${area(f)}:${f.lineNumber + 1}`;
  selfByFn.set(fnKey, (selfByFn.get(fnKey) ?? 0) + dt);
  selfByArea.set(area(f), (selfByArea.get(area(f)) ?? 0) + dt);
  const stack = stackOf(node.id);
  for (const [label, test] of WATCHED) {
    if (stack.some((n) => test(n.callFrame))) inclusive.set(label, (inclusive.get(label) ?? 0) + dt);
  }
}
const busy = total - idle;
const pct = (ms: number) => Math.round((ms / busy) * 1000) / 10;
const sorted = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([k, ms]) => ({ what: k, ms: Math.round(ms), pct_of_busy: pct(ms) }));

process.stdout.write(
  JSON.stringify(
    {
      file,
      window_ms: Math.round(total),
      busy_ms: Math.round(busy),
      idle_ms: Math.round(idle),
      by_area: sorted(selfByArea, top),
      top_self: sorted(selfByFn, top),
      inclusive: WATCHED.map(([label]) => ({
        what: label,
        ms: Math.round(inclusive.get(label) ?? 0),
        pct_of_busy: pct(inclusive.get(label) ?? 0),
      })),
    },
    null,
    2,
  ) + '\n',
);
