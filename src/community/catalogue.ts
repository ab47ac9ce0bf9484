import { createHash } from 'node:crypto';
import type { CommunityIndex } from './community-index.ts';
import { catalogueEntry } from './views.ts';

export interface CatalogueBody {
  /** A strong ETag, a function of the content alone: every process serving the same entries agrees. */
  etag: string;
  /** The JSON text of community.json, built on first use. */
  body(): Buffer;
}

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

  constructor(private readonly index: CommunityIndex) {
    index.onChange((id) => this.forget(id));
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
    const value: CatalogueBody = {
      etag: `"${hash.digest('base64url').slice(0, 32)}"`,
      body: () => (body ??= Buffer.from(`{"count":${parts.length},"entries":[${parts.map((p) => p.text).join(',')}]}`, 'utf8')),
    };
    this.built = { stamp, value };
    return value;
  }
}

/** Whether an If-None-Match header names this ETag (weak or strong, in a list, or `*`). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
