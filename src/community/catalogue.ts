import { createHash } from 'node:crypto';
import type { CommunityIndex } from './community-index.ts';
import { catalogueEntry } from './views.ts';

export interface CatalogueBody {
  /** The JSON text of community.json. */
  body: Buffer;
  /** A strong ETag: the hash of the body, so every process serving the same entries agrees. */
  etag: string;
}

/**
 * community.json: every entry's public picture in one document, rebuilt only when the index has
 * changed since it was last built. Each entry's JSON text is kept too and rebuilt only when that
 * entry changes (its record, live record, forks or children), so a bar close that moves a few
 * live records costs a join and a hash, not 10,000 serialisations.
 */
export class CatalogueBuilder {
  private readonly fragments = new Map<number, string>();
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

  current(): CatalogueBody {
    const stamp = this.index.stamp();
    if (this.built?.stamp === stamp) return this.built.value;
    const parts: string[] = [];
    for (const id of this.index.ids()) {
      let text = this.fragments.get(id);
      if (text === undefined) {
        text = JSON.stringify(catalogueEntry(this.index, this.index.get(id)!));
        this.fragments.set(id, text);
      }
      parts.push(text);
    }
    const body = Buffer.from(`{"count":${parts.length},"entries":[${parts.join(',')}]}`, 'utf8');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
    const value = { body, etag };
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
