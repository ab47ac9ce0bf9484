/**
 * A real 3-node nats-server cluster on loopback (routes, JetStream clustered), for tests and
 * benches of the distributed layout: each node its own process and store, killed and restarted
 * one by one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/bus/index.ts';

export interface ClusterNode {
  name: string;
  port: number;
  url: string;
  child: ChildProcess | null;
}

export interface NatsCluster {
  nodes: ClusterNode[];
  /** Every node's URL, comma-separated: a NATS_URL. */
  url: string;
  /** SIGKILLs a node (its store stays, for a restart). */
  kill(index: number): Promise<void>;
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

async function waitReady(child: ChildProcess, name: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`nats node ${name} not ready: ${out.slice(-2000)}`)), 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Server is ready')) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        child.stderr!.resume();
        resolve();
      }
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`nats node ${name} exited (${code}): ${out.slice(-2000)}`)));
  });
}

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sf-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
  const nodes: ClusterNode[] = ports.map((p, i) => ({
    name: `n${i + 1}`,
    port: p.client,
    url: `nats://127.0.0.1:${p.client}`,
    child: null,
  }));
  const launch = async (i: number) => {
    const node = nodes[i]!;
    const store = join(dir, node.name);
    mkdirSync(store, { recursive: true });
    const child = spawn(
      'nats-server',
      [
        ...['-js', '-sd', store, '-a', '127.0.0.1', '-p', String(node.port), '-n', node.name],
        // One node is a plain server (no routes): what a single-machine benchmark runs on.
        ...(size > 1 ? ['--cluster_name', 'sf', '--cluster', `nats://127.0.0.1:${ports[i]!.route}`, '--routes', routes] : []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    node.child = child;
    await waitReady(child, node.name);
  };
  await Promise.all(nodes.map((_, i) => launch(i)));
  const kill = async (i: number) => {
    const child = nodes[i]!.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    nodes[i]!.child = null;
  };
  return {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    kill,
    restart: launch,
    async stop() {
      for (let i = 0; i < nodes.length; i++) await kill(i);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
