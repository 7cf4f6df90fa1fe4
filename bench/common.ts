/** What every bench section shares: its integer parameters from the environment, its sample statistics, and its tables. */
import { VERSION_SETTLE_MS } from '../src/main/runtime/runtime';

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** A text table: the first row is the header, underlined; columns in `right` are right-aligned. */
export function table(rows: readonly string[][], right: ReadonlySet<number>): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r, i) => {
      const line = r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ');
      return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

/** Order statistics of a set of samples: nearest-rank quantiles; the median averages the middle two. */
export interface SampleStats {
  n: number;
  median: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function sampleStats(samples: readonly number[]): SampleStats {
  if (samples.length === 0) throw new Error('no samples');
  const s = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  const mid = s.length / 2;
  return {
    n: s.length,
    median: s.length % 2 === 1 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2,
    p95: rank(0.95),
    p99: rank(0.99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    min: s[0]!,
    max: s[s.length - 1]!,
  };
}

/**
 * Waits until files written now have settled: a file changed within VERSION_SETTLE_MS has no
 * version yet, so Cairn reads it again on every listing until then. Benches measure memory as an
 * agent meets it, written earlier.
 */
export function settleWrites(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, VERSION_SETTLE_MS + 200));
}
