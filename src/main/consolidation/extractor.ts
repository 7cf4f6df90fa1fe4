/**
 * What proposes a consolidation: the extractor interface of the harvest,
 * for a scope's files instead of a session's messages. `rules` (rules-consolidation.ts) runs offline; the
 * model backends (`command`, `http`: model-consolidation.ts) ask a model through the harvest's runner
 * (harvest/extractors/), given this same input as untrusted data (consolidation-prompt.ts).
 *
 * Invariant: an extractor only proposes. The host (consolidations.ts) checks every answer: paths among the
 * files it was given, each change based on the sha256 the file has (a model must say which), never
 * a pinned or recently created/written file deleted, merged or renamed away, new names by the path
 * rules and inside the scope, at most CONSOLIDATION_MAX_CHANGES, each file in one change, model-written
 * content scanned and within the cap. What it refuses is reported with the reason, never repaired.
 */
import type { Scope } from '../../common/memory/constants';
import type { ConsolidationRefusal, ConsolidationSince, ConsolidationUsage } from '../../common/consolidation/proposal';
import type { ModelCost } from '../harvest/harvest-run';

/** One file of the scope, as the extractor sees it. */
export interface ConsolidationFileInput {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly content: string;
  readonly usage: ConsolidationUsage;
  /** Usage decayed with the hot set's half-life (how "used most" is judged). */
  readonly score: number;
  /** Whether the host forbids deleting it: pinned, or created or written within `days`. */
  readonly protected: boolean;
}

export interface ConsolidationInput {
  readonly scope: Scope;
  /** The clock's time of the proposal (ms). */
  readonly now: number;
  readonly days: number;
  /** Every readable file of the scope, most used first. */
  readonly files: readonly ConsolidationFileInput[];
  /** Paths the host found unused for `days` (and not written or created in them), longest unused first. */
  readonly stale: readonly string[];
  /** What changed since the last applied consolidation. */
  readonly since: ConsolidationSince;
  /** The person's Cancel: a model backend stops its request when it fires. */
  readonly signal?: AbortSignal;
}

/**
 * The sha256 each path of a change was proposed against (null: the path does not exist, the change
 * creates it). A model backend must give it for every path it touches; the offline rules, which
 * propose from the input itself, need not.
 */
export type BasedOn = Readonly<Record<string, string | null>>;

export type ProposedChange =
  | { readonly kind: 'delete'; readonly path: string; readonly reason: string; readonly basedOn?: BasedOn }
  /**
   * `content`: the kept file's new text (absent: it stays as it is); the others are deleted. A
   * model may merge into a new file (`keep` not among the files, basedOn null): then `content` is required.
   */
  | { readonly kind: 'merge'; readonly keep: string; readonly others: readonly string[]; readonly content?: string; readonly reason: string; readonly basedOn?: BasedOn }
  | { readonly kind: 'rewrite'; readonly path: string; readonly content: string; readonly reason: string; readonly basedOn?: BasedOn }
  /** The file moved to `to` (a path of the same scope that does not exist), bytes unchanged. */
  | { readonly kind: 'rename'; readonly path: string; readonly to: string; readonly reason: string; readonly basedOn?: BasedOn };

export interface ConsolidationAnswer {
  readonly changes: readonly ProposedChange[];
  /** Items of a model's answer that were no change at all, or no change it may propose. */
  readonly refused?: readonly ConsolidationRefusal[];
  /** What a model backend sent to get this answer; absent when no model was asked. */
  readonly cost?: ModelCost;
}

export interface ConsolidationExtractor {
  /** 'rules', 'command', 'http'. */
  readonly name: string;
  /** Whether what it writes comes from the files themselves (no scan needed) rather than a model. */
  readonly offline: boolean;
  propose(input: ConsolidationInput): Promise<ConsolidationAnswer>;
}
