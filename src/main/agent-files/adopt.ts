/**
 * Adopt: another agent's file, some of its lines, or a text selected in it, copied into a
 * Cairn scope as inbox candidates for a person to approve. The file is split into statements
 * (statements.ts: the import's Markdown reader, a list item or a paragraph, a paragraph of one
 * sentence per line split into its lines; frontmatter, comments and `@` imports are not entries), and the
 * entries go through the import's proposal (import/propose.ts), which is the harvest's checks
 * (harvest/checks.ts) and the InboxStore: scanned, and never proposed again when they repeat an
 * entry of this adopt, a pending proposal, one rejected in the last 90 days, or a line of any
 * memory file the workspace sees. Each proposal names the file and its line as its evidence.
 *
 * Invariants: nothing here writes memory; a refused entry is reported by its line and rule, never
 * its text (it may hold a secret); a selection is taken only as it is in the file now (a text that
 * is no longer there, or lines past the end, are refused, nothing added).
 */
import type { AdoptResult } from '../../common/agent-files/schema';
import { SCOPES, type Scope } from '../../common/memory/constants';
import type { InboxStore } from '../inbox/inbox-store';
import type { ImportEntry } from '../import/entries';
import { allMemoryLines } from '../import/memory-files';
import { leftOutText, proposeEntries, type LeftOutReason } from '../import/propose';
import type { ImportFormat } from '../import/sources';
import type { MemorySession } from '../memory/session';
import { AgentFilesError, type Located } from './discovery';
import { statementsOf } from './statements';

export interface AdoptSelection {
  readonly lines?: readonly (readonly [number, number])[] | undefined;
  readonly text?: string | undefined;
}

/** The import format whose reading an agent's file gets (its Markdown either way). */
function formatOf(file: Located): ImportFormat {
  const agent = file.entry.agent;
  return agent === 'claude' || agent === 'codex' || agent === 'cursor' ? agent : 'markdown';
}

/** The entries of the file (or of the selection), with their lines in the file. */
function selectedEntries(file: Located, selection: AdoptSelection): ImportEntry[] {
  const content = file.inspected.content!;
  const mdc = file.id.endsWith('.mdc');
  if (selection.text !== undefined) {
    const at = content.indexOf(selection.text);
    if (selection.text.trim() === '' || at < 0) throw new AgentFilesError(`The selected text is not in ${file.id} as it is now; open the file again and select it there.`);
    const before = content.slice(0, at).split('\n').length - 1;
    return statementsOf(selection.text).map((e) => ({ ...e, line: e.line + before }));
  }
  const all = statementsOf(content, { description: mdc });
  if (!selection.lines) return all;
  const count = content.endsWith('\n') ? content.split('\n').length - 1 : content.split('\n').length;
  for (const [a, b] of selection.lines) {
    if (a > b || b > count) throw new AgentFilesError(`Lines ${a}-${b} are not in ${file.id}, which has ${count} line${count === 1 ? '' : 's'}; open it again and select them there.`);
  }
  // An entry runs from its line to the line before the next one: taken when that touches a range.
  return all.filter((e, i) => {
    const end = (all[i + 1]?.line ?? count + 1) - 1;
    return selection.lines!.some(([a, b]) => e.line <= b && end >= a);
  });
}

export interface AdoptContext {
  readonly inbox: InboxStore;
  readonly session: MemorySession;
  /** The workspace's checkout on this machine (the inbox's approval finds the session by it). */
  readonly cwd: string | null;
}

export async function adoptFile(file: Located, scope: Scope, selection: AdoptSelection, ctx: AdoptContext): Promise<AdoptResult> {
  const binding = ctx.session.scopes[scope];
  if (!binding.available) throw new AgentFilesError(`Nothing can be adopted into ${scope} memory here: ${binding.reason}`);
  const entries = selectedEntries(file, selection);
  if (entries.length === 0) {
    return { status: 'ok', added: [], duplicates: [], refused: [], message: `Nothing to adopt: the ${selection.text !== undefined || selection.lines ? 'selection' : 'file'} holds no entry (headings, blank lines and frontmatter are not memories).` };
  }
  const outcomes = proposeEntries([{ source: { file: file.id, shown: file.id, scope }, entries }], {
    format: formatOf(file),
    origin: 'adopt',
    inbox: ctx.inbox,
    session: ctx.session,
    memoryLines: await allMemoryLines(ctx.session, SCOPES),
    scope,
    cwd: ctx.cwd,
  });
  const textAt = new Map(entries.map((e) => [e.line, e.text]));
  const added: string[] = [];
  const duplicates: Extract<AdoptResult, { status: 'ok' }>['duplicates'] = [];
  const refused: Extract<AdoptResult, { status: 'ok' }>['refused'] = [];
  const leftOut = new Map<LeftOutReason, number>();
  for (const o of outcomes) {
    if (o.status === 'left-out') leftOut.set(o.reason as LeftOutReason, (leftOut.get(o.reason as LeftOutReason) ?? 0) + 1);
    else if (o.status === 'proposed' && o.item) added.push(o.item.id);
    else if (o.reason === 'flagged') refused.push({ line: o.line, reason: `the scanners found ${o.detail ?? 'a secret or an injected instruction'}` });
    else if (o.reason) duplicates.push({ text: textAt.get(o.line) ?? '', reason: o.reason as (typeof duplicates)[number]['reason'] });
  }
  const parts = [`${added.length} ${added.length === 1 ? 'proposal' : 'proposals'} from ${file.id} added to the Inbox for ${scope} memory`];
  if (duplicates.length > 0) parts.push(`${duplicates.length} already known`);
  if (refused.length > 0) parts.push(`${refused.length} refused by the scanners (line${refused.length === 1 ? '' : 's'} ${refused.map((r) => r.line).join(', ')})`);
  return { status: 'ok', added, duplicates, refused, message: [`${parts.join('; ')}.`, ...[...leftOut].map(([reason, n]) => leftOutText(reason, n, { origin: 'adopt' }))].join(' ') };
}
