import { openBucket, type Bus, type JsonKv } from '../bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { EntryLink } from '../../schemas/payouts.ts';

/**
 * Who published which community entry, when, and what it was forked from: an in-memory mirror of
 * `sf_community` kept by a KV watch, reading only those fields (the frozen model stays in KV).
 * The sweep walks every fork each day; a mirror makes that a loop, not a KV read per entry.
 */
export class EntryLinks {
  private readonly links = new Map<number, EntryLink>();
  private watch: { stop(): void } | null = null;

  constructor(private readonly kv: JsonKv<typeof EntryLink>) {}

  static async open(bus: Bus, replicas = 1): Promise<EntryLinks> {
    return new EntryLinks(await openBucket(bus, { ...Buckets.community, schema: EntryLink }, replicas));
  }

  /** Resolves once every entry in KV is mirrored; changes follow as they happen. */
  async start(): Promise<void> {
    const watch = await this.kv.watch((key, link) => {
      if (link) this.links.set(link.community_id, link);
      else this.links.delete(Number(key));
    });
    this.watch = watch;
    await watch.ready;
  }

  stop(): void {
    this.watch?.stop();
  }

  /** Every entry by community_id (read-only: the mirror's own map). */
  entries(): ReadonlyMap<number, EntryLink> {
    return this.links;
  }
}
