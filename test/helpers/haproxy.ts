/**
 * The load balancer of the distributed layout, for real: haproxy (Debian's, installed by
 * deploy/ensure-deps.sh) running `deploy/haproxy.cfg` itself, with only what compose decides
 * changed — the port it binds and the edges' addresses (loopback ports instead of `edgeN:8080`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/bus/index.ts';

export interface Haproxy {
  url: string;
  /** haproxy's view of each edge ("UP", "DOWN"…, by server name edge1, edge2…), from its stats socket. */
  status(): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

const CONFIG = new URL('../../deploy/haproxy.cfg', import.meta.url);
/** Debian's haproxy (in /usr/sbin, which a non-root PATH may lack). */
export const HAPROXY_BIN = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';

/** The deployed config with `bind :8080` on `port` and the `server edgeN edgeN:8080` lines on `edges` (host:port each). */
export function localConfig(port: number, edges: string[], statsSocket: string): string {
  let text = readFileSync(CONFIG, 'utf8');
  // More edges than the file names (compose scaled out): more servers written like its last one.
  const named = [...text.matchAll(/^(\s*)server edge\d+ edge\d+:8080(.*)$/gm)];
  const last = named.at(-1);
  const more = Array.from(
    { length: Math.max(0, edges.length - named.length) },
    (_, i) => `\n${last?.[1]}server edge${named.length + i + 1} edge${named.length + i + 1}:8080${last?.[2]}`,
  );
  if (last && more.length > 0) text = text.replace(last[0], last[0] + more.join(''));
  const servers = [...text.matchAll(/^(\s*)server (edge\d+) edge\d+:8080(.*)$/gm)];
  if (servers.length !== edges.length) throw new Error(`deploy/haproxy.cfg names ${servers.length} edges, the test ${edges.length}`);
  let out = text.replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${port}`);
  servers.forEach((m, i) => (out = out.replace(m[0], `${m[1]}server ${m[2]} ${edges[i]}${m[3]}`)));
  // The stats socket: how the test reads the health checks' verdicts.
  return out.replace(/^global$/m, `global\n  stats socket ${statsSocket} level admin`);
}

export async function startHaproxy(edges: string[]): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'sf-haproxy-'));
  const port = await freePort();
  const socket = join(dir, 'stats.sock');
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(
    file,
    localConfig(
      port,
      edges.map((e) => new URL(e).host),
      socket,
    ),
  );
  const child: ChildProcess = spawn(HAPROXY_BIN, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const status = async () => {
    const csv = await new Promise<string>((resolve, reject) => {
      let text = '';
      const conn = createConnection(socket, () => conn.end('show stat\n'));
      conn.on('data', (d: Buffer) => (text += d.toString()));
      conn.on('end', () => resolve(text));
      conn.on('error', reject);
    });
    const lines = csv.split('\n');
    const header = lines[0]!.replace(/^# /, '').split(',');
    const [px, sv, st] = ['pxname', 'svname', 'status'].map((n) => header.indexOf(n));
    const out = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const f = line.split(',');
      if (f[px!] === 'edges' && /^edge\d+$/.test(f[sv!] ?? '')) out.set(f[sv!]!, f[st!]!.split(' ')[0]!);
    }
    return out;
  };
  // Listening once the stats socket answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    if ((await status().catch(() => null))?.size === edges.length) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    status,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
