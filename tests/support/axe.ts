/**
 * axe-core in a Playwright page: injects node_modules/axe-core/axe.min.js (the pinned devDependency)
 * once per page and runs it over the whole document, WCAG 2.x A and AA rules plus axe's best
 * practices, answering the violations grouped by impact with, for each, the rule, its help and the
 * first offending elements' selectors and failure summaries (enough to find and fix it from a log).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: string | null = null;
const axeSource = () => (source ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));

export type Impact = 'critical' | 'serious' | 'moderate' | 'minor';

export interface AxeViolation {
  readonly rule: string;
  readonly impact: Impact;
  readonly help: string;
  /** How many elements break it. */
  readonly count: number;
  /** The first few: selector and axe's failure summary. */
  readonly nodes: readonly string[];
  /** The role attribute of every element it is on ('' for none). */
  readonly roles: readonly string[];
}

export interface AxeReport {
  readonly byImpact: Record<Impact, AxeViolation[]>;
  /** How many elements break a rule of each impact. */
  readonly counts: Record<Impact, number>;
}

/** Runs axe over the page as it is now. */
export async function runAxe(page: Page): Promise<AxeReport> {
  const injected = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  // Evaluated through the DevTools protocol, which the app's Content-Security-Policy (script-src
  // 'self') does not govern, unlike a <script> tag.
  if (!injected) await page.evaluate(axeSource());
  const raw = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }> } }).axe;
    const roleOf = (target: unknown[]) => {
      const selector = target[0];
      const el = typeof selector === 'string' ? document.querySelector(selector) : null;
      return el?.getAttribute('role') ?? '';
    };
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      rule: v.id,
      impact: (v.impact ?? 'minor') as string,
      help: v.help,
      count: v.nodes.length,
      roles: v.nodes.map((n) => roleOf(n.target)),
      nodes: v.nodes.slice(0, 4).map((n) => `${JSON.stringify(n.target)}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300)}`),
    }));
  });
  const byImpact: Record<Impact, AxeViolation[]> = { critical: [], serious: [], moderate: [], minor: [] };
  const counts: Record<Impact, number> = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of raw) {
    const impact = v.impact as Impact;
    byImpact[impact].push({ ...v, impact });
    counts[impact] += v.count;
  }
  return { byImpact, counts };
}

/** A violation a suite accepts, by rule and the elements it is on (their role in the page). */
export interface KnownViolation {
  readonly rule: string;
  /** Only on elements with this role. */
  readonly role: string;
}

/**
 * The critical and serious violations as lines (empty when there are none): what a test asserts on.
 * A known one is left out only when every element it is on has the role it names.
 */
export function blocking(report: AxeReport, known: readonly KnownViolation[] = []): string[] {
  return [...report.byImpact.critical, ...report.byImpact.serious]
    .filter((v) => !known.some((k) => k.rule === v.rule && v.roles.every((r) => r === k.role)))
    .map((v) => `${v.impact} ${v.rule} (${v.count}, roles: ${[...new Set(v.roles)].join(', ') || 'none'}): ${v.help}\n    ${v.nodes.join('\n    ')}`);
}
