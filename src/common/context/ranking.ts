/**
 * Which memories are hot: pinned files first, then files ranked by usage decayed with a 7-day
 * half-life. The order does not depend on when it is computed (every score decays by the same
 * factor), so the same state always ranks the same way. And which are recent (rankRecent): the most
 * recently used or changed first, for the injection settings' `recent_only` and no-match fallback.
 */
import { USAGE_HALF_LIFE_MS } from '../memory/constants';
import type { UsageStats } from '../memory/usage';

/** accessCount, halved for every half-life since the last access. */
export function decayedUsage(stats: UsageStats, now: number): number {
  if (stats.accessCount === 0 || stats.lastAccessedAt === null) return 0;
  const at = Date.parse(stats.lastAccessedAt);
  if (Number.isNaN(at)) return 0;
  return stats.accessCount * 0.5 ** (Math.max(0, now - at) / USAGE_HALF_LIFE_MS);
}

/**
 * Candidates for the hot set, best first: pinned files, then used ones by decayed usage; ties by
 * path. Files never used and not pinned are left out.
 */
export function rankHot<T extends { readonly path: string; readonly stats: UsageStats }>(items: readonly T[]): T[] {
  // log2 of the decayed usage plus now/half-life: the same order at any time, and exact even for
  // usage decayed over many half-lives.
  const score = (s: UsageStats) =>
    s.accessCount === 0 || s.lastAccessedAt === null || Number.isNaN(Date.parse(s.lastAccessedAt))
      ? -Infinity
      : Math.log2(s.accessCount) + Date.parse(s.lastAccessedAt) / USAGE_HALF_LIFE_MS;
  return items
    .filter((i) => i.stats.pinned || score(i.stats) > -Infinity)
    .map((i) => ({ i, s: score(i.stats) }))
    .sort((a, b) => Number(b.i.stats.pinned) - Number(a.i.stats.pinned) || b.s - a.s || (a.i.path < b.i.path ? -1 : a.i.path > b.i.path ? 1 : 0))
    .map(({ i }) => i);
}

/** When a file was last used or changed (ms): the later of its last use, its last write and its mtime. */
function lastTouched(item: { readonly stats: UsageStats; readonly mtimeMs: number }): number {
  const used = item.stats.lastAccessedAt === null ? Number.NaN : Date.parse(item.stats.lastAccessedAt);
  const written = item.stats.lastWriteAt === null ? Number.NaN : Date.parse(item.stats.lastWriteAt);
  return Math.max(item.mtimeMs, Number.isNaN(used) ? -Infinity : used, Number.isNaN(written) ? -Infinity : written);
}

/**
 * Files by recency (injection settings' `recent_only`, and the fallback when no file matches a
 * prompt): the most recently used or changed first (lastTouched), ties by path. Every file is a
 * candidate, used or not; what may be shown is the caller's to filter.
 */
export function rankRecent<T extends { readonly path: string; readonly stats: UsageStats; readonly mtimeMs: number }>(items: readonly T[]): T[] {
  return items
    .map((i) => ({ i, t: lastTouched(i) }))
    .sort((a, b) => b.t - a.t || (a.i.path < b.i.path ? -1 : a.i.path > b.i.path ? 1 : 0))
    .map(({ i }) => i);
}
