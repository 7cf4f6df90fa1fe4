/** Short, human times for rows and stats: "just now", "5 min ago", "3 h ago", "2 d ago", a date. */
export function relativeTime(iso: string | null, now = Date.now()): string | null {
  if (iso === null) return null;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return null;
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** `Used 12× · 3 h ago`, or null when the file was never used. */
export function usageLine(accessCount: number, lastAccessedAt: string | null, now = Date.now()): string | null {
  if (accessCount === 0) return null;
  const when = relativeTime(lastAccessedAt, now);
  return when ? `Used ${accessCount}× · ${when}` : `Used ${accessCount}×`;
}
