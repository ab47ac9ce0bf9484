/**
 * Whole responses of the bulk read routes (/ohlc, /indicators), kept as encoded bytes while the
 * series they were built from is unchanged. Charts poll the same latest window again and again:
 * a repeat then costs a map lookup instead of joining and encoding ~1 MB of JSON.
 */
export class ResponseCache {
  private readonly entries = new Map<string, { stamp: string; body: Buffer }>();

  /** @param maxEntries bound on memory: each entry is one response (up to ~1 MB). */
  constructor(private readonly maxEntries = 32) {}

  /**
   * The cached body for `key` when it was built at `stamp` (e.g. series version and length),
   * else a new one from `build`, kept for next time.
   */
  get(key: string, stamp: string, build: () => string): Buffer {
    const hit = this.entries.get(key);
    if (hit && hit.stamp === stamp) {
      // Refresh its place: the map's order is the eviction order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.body;
    }
    const body = Buffer.from(build(), 'utf8');
    this.entries.delete(key);
    this.entries.set(key, { stamp, body });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return body;
  }

  get size(): number {
    return this.entries.size;
  }
}
