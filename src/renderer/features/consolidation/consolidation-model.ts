/**
 * The consolidation view's words and choices, pure: what each change and each file of
 * it does, a file's usage as a line, what changed since the last consolidation, the outcome of an
 * apply, why there is nothing to consolidate, and which applied proposal is a scope's last.
 * Changes are read generically from `files[]` (a file's `content`: its new text, null when it goes,
 * absent when it stays as it is), so a kind the view does not know yet still shows what it does.
 */
import type { Scope } from '../../../common/memory/constants';
import type { ConsolidationChange, ConsolidationFile, ConsolidationProposal, ConsolidationResult, ConsolidationSince, ConsolidationUsage } from '../../../common/consolidation/proposal';
import { relativeTime } from '../../lib/relative-time';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A change's kind as a verb for its row ("Delete", "Merge", ...), any kind. */
export function kindLabel(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

/** Who or what proposed, as the header says it. */
export function extractorText(name: string): string {
  if (name === 'rules') return 'from usage and near-duplicates';
  if (name === 'agent') return 'by your agent (through MCP), checked by Cairn';
  return `by a model (${name}), checked by Cairn`;
}

/** Who or what proposed, as a name: "the rules", "your agent", "a model (command)". */
export function proposerName(name: string): string {
  return name === 'rules' ? 'the rules (cairn consolidate, or this view)' : name === 'agent' ? 'your agent' : `a model (${name})`;
}

/** The scope's open proposal still in time (made by `cairn consolidate`, an agent, or this view before), newest first. */
export function openProposal(proposals: readonly ConsolidationProposal[], scope: Scope, now = Date.now()): ConsolidationProposal | null {
  return proposals.find((p) => p.scope === scope && p.state === 'open' && Date.parse(p.expiresAt) > now) ?? null;
}

/** What happens to one file of a change, in a few words. */
export function fileFate(change: Pick<ConsolidationChange, 'kind' | 'path'>, file: Pick<ConsolidationFile, 'path' | 'content' | 'created'>): string {
  if (file.created) return change.kind === 'rename' ? 'the new name (created)' : 'created';
  if (file.content === null) return change.kind === 'merge' ? 'merged away (deleted)' : change.kind === 'rename' ? 'the old name (goes)' : 'deleted';
  if (file.content === undefined) return 'kept as it is';
  if (change.kind === 'merge') return 'kept, with the lines it lacks';
  return change.kind === 'rewrite' ? 'rewritten' : 'written';
}

/** A file's usage when proposed: "Pinned · used 3×, last 95 d ago · written 2026-01-02". */
export function usageText(u: ConsolidationUsage, now = Date.now()): string {
  const parts: string[] = [];
  if (u.pinned) parts.push('Pinned');
  if (u.accessCount === 0) parts.push(u.pinned ? 'never used by an agent' : 'Never used by an agent');
  else {
    const last = relativeTime(u.lastAccessedAt, now);
    parts.push(`${u.pinned ? 'used' : 'Used'} ${u.accessCount}×${last ? `, last ${last}` : ''}`);
  }
  const written = relativeTime(u.lastWriteAt, now);
  if (written) parts.push(`last written ${written}`);
  return parts.join(' · ');
}

/** What changed in the scope since its last consolidation, as one sentence. */
export function sinceText(since: ConsolidationSince, now = Date.now()): string {
  if (since.last === null) return since.total === 0 ? 'This scope was never consolidated.' : `This scope was never consolidated; ${plural(since.total, 'file')} changed in its history.`;
  const when = relativeTime(since.last.at, now) ?? since.last.at;
  if (since.total === 0) return `Nothing changed since the last consolidation (${when}).`;
  return `${plural(since.total, 'file')} changed since the last consolidation (${when}).`;
}

/** Who made a change listed under "since": the history's actor in words. */
export function actorText(actor: string): string {
  return actor === 'agent' ? 'an agent' : actor === 'person' ? 'you' : actor === 'external' ? 'outside Cairn' : actor;
}

/** Why a proposal found nothing to consolidate. */
export function nothingWhy(scope: Scope, days: number, since: ConsolidationSince, now = Date.now()): string {
  return `No file in ${scope} memory has gone unused for ${days} days, and none repeats another it could be merged into (a pinned file, or one written in those ${days} days, is never deleted; a pinned file is never merged away). ${sinceText(since, now)}`;
}

/**
 * The file a created file's text comes from (a rename's old name: the file of the same change that
 * goes), to diff against; null when it comes from none.
 */
export function sourceOf(change: Pick<ConsolidationChange, 'files'>, file: Pick<ConsolidationFile, 'path' | 'created'>): ConsolidationFile | null {
  if (!file.created) return null;
  const going = change.files.filter((f) => f.path !== file.path && f.content === null && !f.created);
  return going.length === 1 ? going[0]! : null;
}

/** The files whose own diff a change shows: a file whose text moves to a created one is shown in that one's. */
export function diffedFiles(change: Pick<ConsolidationChange, 'files'>): ConsolidationFile[] {
  const sources = new Set(change.files.map((f) => sourceOf(change, f)?.path).filter((p): p is string => p !== undefined));
  return change.files.filter((f) => !sources.has(f.path));
}

/** The outcome of an apply: what was written, and each change skipped because its file moved on. */
export function resultHeadline(result: ConsolidationResult): string {
  const chosen = result.applied.length + result.skipped.length;
  if (result.applied.length === 0) return `Applied nothing: ${chosen === 1 ? 'the change chosen was' : `all ${chosen} changes chosen were`} skipped, because their files changed since the proposal. Memory is as it was.`;
  const skipped = result.skipped.length === 0 ? '' : ` ${plural(result.skipped.length, 'change was', 'changes were')} skipped (a conflict: the file changed since the proposal).`;
  return `Applied ${plural(result.applied.length, 'change')} as one change you can undo.${skipped}`;
}

/** Skipped, in words: the file and what happened to it since the proposal. */
export function skippedText(s: ConsolidationResult['skipped'][number]): string {
  const what = s.kind === 'deleted' ? 'was deleted' : s.kind === 'exists' ? 'exists again' : 'was changed';
  return `Skipped ${s.path}: ${s.file} ${what} since the proposal, so this change was not applied.`;
}

export interface LastConsolidation {
  readonly id: string;
  readonly scope: Scope;
  readonly at: string;
  /** The history batch that `history.undo` takes back. */
  readonly batch: string;
}

/** Each scope's last applied consolidation that wrote something (proposals come newest first; sorted again here). */
export function lastConsolidations(proposals: readonly ConsolidationProposal[]): Partial<Record<Scope, LastConsolidation>> {
  const out: Partial<Record<Scope, LastConsolidation>> = {};
  const applied = proposals.filter((p) => p.state === 'applied' && p.result?.batch).sort((a, b) => (b.result!.at < a.result!.at ? -1 : b.result!.at > a.result!.at ? 1 : 0));
  for (const p of applied) if (!out[p.scope]) out[p.scope] = { id: p.id, scope: p.scope, at: p.result!.at, batch: p.result!.batch! };
  return out;
}

/** Changes in the order the view lists them, with the key each is chosen by (`only` takes it). */
export const changeKey = (c: Pick<ConsolidationChange, 'path'>) => c.path;
