import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import type { CommunityIndex } from './community-index.ts';
import { catalogueEntry } from './views.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface CatalogueBody {
  /** A strong ETag, a function of the content alone: every process serving the same entries agrees. */
  etag: string;
  /** The JSON text of community.json, built on first use. */
  body(): Buffer;
  /** The same, gzip-compressed once (off the event loop) and kept. */
  gzipped(): Promise<Buffer>;
}

const compress = promisify(gzip);

/** Bodies are built ahead of requests only while someone reads the catalogue (10 minutes since the last). */
const WARM_WHILE_READ_MS = 10 * 60_000;

interface Fragment {
  text: string;
  digest: Buffer;
}

/**
 * community.json: every entry's public picture in one document. Each entry's JSON text (and its
 * digest) is kept and rebuilt only when that entry changes — its record, live record, forks or
 * children — so after a bar close moves a few live records, the ETag costs a hash over 10,000
 * small digests, and the body one join, only when someone asks for it (a 304 never does).
 */
export class CatalogueBuilder {
  private readonly fragments = new Map<number, Fragment>();
  private built: { stamp: string; value: CatalogueBody } | null = null;
  private warmTimer: NodeJS.Timeout | null = null;
  /** When a client last asked for the gzip body (0: never): only then is it worth building ahead. */
  private gzipAskedAt = 0;

  /**
   * @param warmAfterMs after a change, the body (and its gzip, when clients take it) is rebuilt
   *   ahead of the next request this much later — at most once per interval, so a burst of live
   *   records at a bar close costs one rebuild, and a request rarely waits for one.
   */
  private readonly clock: Clock;

  constructor(
    private readonly index: CommunityIndex,
    private readonly warmAfterMs = 1000,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
    index.onChange((id) => {
      this.forget(id);
      this.scheduleWarm();
    });
  }

  private scheduleWarm(): void {
    if (this.warmTimer || this.clock.now() - this.gzipAskedAt > WARM_WHILE_READ_MS) return;
    this.warmTimer = setTimeout(() => {
      this.warmTimer = null;
      this.current()
        .gzipped()
        .catch(() => undefined);
    }, this.warmAfterMs);
    this.warmTimer.unref();
  }

  stop(): void {
    if (this.warmTimer) clearTimeout(this.warmTimer);
    this.warmTimer = null;
  }

  /** The gzip body of a snapshot `current()` gave (a reader of gzip: keeps the warming above on). */
  gzipped(snapshot: CatalogueBody): Promise<Buffer> {
    this.gzipAskedAt = this.clock.now();
    return snapshot.gzipped();
  }

  /** An entry's picture changed: its text, and its descendants' (their root_id), are stale. */
  private forget(id: number, seen = new Set<number>()): void {
    if (seen.has(id)) return;
    seen.add(id);
    this.fragments.delete(id);
    for (const child of this.index.childrenOf(id)) this.forget(child, seen);
  }

  private fragment(id: number): Fragment {
    let fragment = this.fragments.get(id);
    if (!fragment) {
      const text = JSON.stringify(catalogueEntry(this.index, this.index.get(id)!));
      fragment = { text, digest: createHash('md5').update(text).digest() };
      this.fragments.set(id, fragment);
    }
    return fragment;
  }

  current(): CatalogueBody {
    const stamp = this.index.stamp();
    if (this.built?.stamp === stamp) return this.built.value;
    const parts = this.index.ids().map((id) => this.fragment(id));
    const hash = createHash('sha256').update(String(parts.length));
    for (const part of parts) hash.update(part.digest);
    let body: Buffer | null = null;
    let gzipped: Promise<Buffer> | null = null;
    const value: CatalogueBody = {
      etag: `"${hash.digest('base64url').slice(0, 32)}"`,
      body: () => (body ??= Buffer.from(`{"count":${parts.length},"entries":[${parts.map((p) => p.text).join(',')}]}`, 'utf8')),
      // Level 1: a tenth of the bytes of JSON this repetitive, at a fraction of level 6's time.
      gzipped: () => (gzipped ??= compress(value.body(), { level: constants.Z_BEST_SPEED })),
    };
    this.built = { stamp, value };
    return value;
  }
}

/** The ETag of the gzip representation: another strong validator for other bytes (RFC 9110 8.8.3). */
export const gzipEtag = (etag: string): string => `${etag.slice(0, -1)}-gz"`;

/**
 * Whether an If-None-Match header names this content's ETag, in either representation (weak or
 * strong, in a list, or `*`): both say the client holds the current entries.
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const gz = gzipEtag(etag);
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === etag || t === gz;
  });
}
