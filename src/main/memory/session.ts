/**
 * The types every part of the memory layer shares: the scopes a session sees, how a command is
 * run, and what a command or a save answers. Types only, so that callers (hosts, the change feed,
 * the workspaces) can name a session without importing the service.
 */
import type { AgentRef } from '../../common/activity/agents';
import type { Actor, Mode, Scope } from '../../common/memory/constants';
import type { Runtime, ScopeRoot } from '../runtime/runtime';

/** One scope as a session sees it: where it lives, or why it is unavailable. */
export type ScopeBinding =
  | { readonly scope: Scope; readonly available: true; readonly runtime: Runtime; readonly root: ScopeRoot }
  | { readonly scope: Scope; readonly available: false; readonly reason: string };

/** A scope that can be read and written. */
export type AvailableScope = Extract<ScopeBinding, { available: true }>;

/** The scopes visible to one agent session or one UI view, and the identities of their owners. */
export interface MemorySession {
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  readonly scopes: Readonly<Record<Scope, ScopeBinding>>;
}

/** Who runs a command, and in which agent mode. */
export interface ExecuteOptions {
  readonly mode: Mode;
  readonly actor: Actor;
  /** What the history records the change as (default 'tool'; 'review:<id>' for an approved proposal). */
  readonly cause?: string;
  /**
   * For a delete or rename of a file: the sha256 the file must still have, checked under the scope
   * lock (and, for a rename, no file at the destination); otherwise a StaleFileError and nothing
   * is changed. A person applying a proposal they reviewed (inbox/inbox-review.ts) passes it.
   */
  readonly expectedSha256?: string;
  /** An agent's command: which agent and session (its MCP client, or a hook's flags), recorded in the history. */
  readonly agent?: AgentRef | undefined;
}

export type SaveOutcome =
  | { readonly status: 'ok'; readonly sha256: string; readonly created: boolean }
  | { readonly status: 'conflict'; readonly kind: 'changed' | 'deleted' | 'exists'; readonly message: string };

export interface ToolResult {
  readonly ok: boolean;
  /** The tool's text: the result, or the error starting with `Error: `. */
  readonly output: string;
}
