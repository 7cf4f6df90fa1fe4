/**
 * What proposes a consolidation (issue 22): the extractor interface of the harvest (issue 19),
 * for a scope's files instead of a session's messages. `rules` (rules-sweep.ts) runs offline; the
 * model backends (`agent`, `command`, `http`) are to come through harvest/extractors/'s prompt and
 * answer machinery, given this same input as untrusted data.
 *
 * Invariant: an extractor only proposes. The host (sweeps.ts) checks every answer: paths among the
 * files it was given, never a pinned or recently created/written file deleted or merged away, at
 * most SWEEP_MAX_CHANGES, each file in one change, model-written content scanned and within the cap.
 */
import type { Scope } from '../../common/memory/constants';
import type { SweepSince, SweepUsage } from '../../common/sweep/proposal';

/** One file of the scope, as the extractor sees it. */
export interface SweepFileInput {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly content: string;
  readonly usage: SweepUsage;
  /** Usage decayed with the hot set's half-life (how "used most" is judged). */
  readonly score: number;
  /** Whether the host forbids deleting it: pinned, or created or written within `days`. */
  readonly protected: boolean;
}

export interface SweepInput {
  readonly scope: Scope;
  /** The clock's time of the proposal (ms). */
  readonly now: number;
  readonly days: number;
  /** Every readable file of the scope, most used first. */
  readonly files: readonly SweepFileInput[];
  /** Paths the host found unused for `days` (and not written or created in them), longest unused first. */
  readonly stale: readonly string[];
  /** What changed since the last applied consolidation. */
  readonly since: SweepSince;
  /** The person's Cancel: a model backend stops its request when it fires. */
  readonly signal?: AbortSignal;
}

export type ProposedChange =
  | { readonly kind: 'delete'; readonly path: string; readonly reason: string }
  /** `content`: the kept file's new text (absent: it stays as it is); the others are deleted. */
  | { readonly kind: 'merge'; readonly keep: string; readonly others: readonly string[]; readonly content?: string; readonly reason: string }
  | { readonly kind: 'rewrite'; readonly path: string; readonly content: string; readonly reason: string };

export interface SweepExtractor {
  /** 'rules', later 'agent', 'command', 'http'. */
  readonly name: string;
  /** Whether what it writes comes from the files themselves (no scan needed) rather than a model. */
  readonly offline: boolean;
  propose(input: SweepInput): Promise<ProposedChange[]>;
}
