/**
 * V8's sampling heap profiler over a measured window, with collected objects included: every
 * allocation of the window, not what survives it. The garbage a window makes is what the
 * scavenger then works through, so it decides most of the GC cost; unlike CPU time, it does not
 * move with the machine's speed.
 */
import { Session } from 'node:inspector/promises';

interface SampledProfile {
  head: ProfileNode;
  samples: Array<{ size: number; nodeId: number }>;
}
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: ProfileNode[];
}

/** Bytes per allocating site (function@file:line, the frame that allocated). */
function bySite(profile: SampledProfile): Map<string, number> {
  const site = new Map<number, string>();
  const walk = (n: ProfileNode) => {
    const f = n.callFrame;
    const file = f.url
      .replace(/^file:\/\//, '')
      .split('/node_modules/')
      .pop()!
      .replace(/^.*\/(src|actors|schemas|test)\//, '$1/');
    site.set(n.id, `${f.functionName || '(anonymous)'}@${file || '(native)'}:${f.lineNumber + 1}`);
    for (const c of n.children ?? []) walk(c);
  };
  walk(profile.head);
  const out = new Map<string, number>();
  for (const s of profile.samples) {
    const key = site.get(s.nodeId) ?? '(unknown)';
    out.set(key, (out.get(key) ?? 0) + s.size);
  }
  return out;
}

export interface AllocationReport {
  /** Every byte allocated in the window (sampled every 4 KB). */
  bytes: number;
  /** Allocating sites, most bytes first. */
  sites: Array<[site: string, bytes: number]>;
}

/** Starts sampling; the returned function stops it and reports the window's allocations. */
export async function sampleAllocations(): Promise<() => Promise<AllocationReport>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  return async () => {
    try {
      const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: SampledProfile };
      const sites = [...bySite(profile)].sort((a, b) => b[1] - a[1]);
      return { bytes: sites.reduce((s, [, v]) => s + v, 0), sites };
    } finally {
      session.disconnect();
    }
  };
}

/** Bytes as KB per unit (model-bar, signal), two decimals. */
export const kbPer = (bytes: number, units: number): number => Math.round((bytes / units / 1024) * 100) / 100;
