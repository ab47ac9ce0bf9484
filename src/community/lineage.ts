import type { CommunityEntry, Lineage } from '../../schemas/community.ts';
import { unknownEntry, type CommunityIndex } from './community-index.ts';
import { ancestorsOf, entryView, lineageNode } from './views.ts';

/** GET /lineage/{id}: the entry, its ancestors (parent first, up to the root) and its direct children. */
export function lineage(index: CommunityIndex, id: number): Lineage {
  const entry = index.get(id);
  if (!entry) throw unknownEntry(id);
  return {
    entry: lineageNode(index, entry),
    ancestors: ancestorsOf(index, entry).map((a) => lineageNode(index, a)),
    children: index.childrenOf(id).flatMap((c) => {
      const child = index.get(c);
      return child ? [lineageNode(index, child)] : [];
    }),
  };
}

/** GET /community/{id}: one entry's public picture. */
export function communityEntry(index: CommunityIndex, id: number): CommunityEntry {
  const entry = index.get(id);
  if (!entry) throw unknownEntry(id);
  return entryView(index, entry);
}
