/**
 * Imported entries into the inbox (`cairn import --from FORMAT`): each entry a source
 * file holds becomes a memory candidate, with the file and line as its evidence and the headings
 * above it in its rationale, and passes the harvest's own checks (harvest/checks.ts): the content
 * scanners on its text, its rationale and the source text it stands on; no repeat of another entry
 * of this import, of a pending proposal, of one rejected in the last 90 days, or of a line of any
 * memory file the session sees. What passes waits in the inbox, pending, for a person.
 *
 * Each entry is its own "message" of the import's segment (id `<shown file>:<line>`, the person's
 * own words: they wrote the file), so the evidence check holds by construction and every other
 * check runs exactly as for a harvest.
 *
 * Invariants: nothing here writes memory; a refused entry is reported by its line and the rule
 * (never its text: it may hold a secret); an entry's category and scope are decided here (the
 * source's own, else a guess from its words; the scope from sources.ts), and shown to the person,
 * who may file it elsewhere when approving. One import proposes at most MAX_IMPORT_PROPOSALS
 * entries and never more than the inbox has room for (the InboxStore's cap): the entries past
 * either are left out unchecked, each reported with which bound left it out.
 */
import { inboxFullText } from '../../common/api/inbox-text';
import { MAX_IMPORT_PROPOSALS, MAX_INBOX_PENDING, type Scope } from '../../common/memory/constants';
import { scanContent, type ScanFinding } from '../memory/scanners/content-scanner';
import type { Candidate, CandidateCategory } from '../inbox/candidate';
import { checkCandidates, normalizedText, type RejectionReason } from '../harvest/checks';
import type { InboxStore, ItemSource, MemoryItem } from '../inbox/inbox-store';
import type { TranscriptAgent, TranscriptMessage } from '../harvest/transcript';
import type { MemorySession } from '../memory/session';
import type { ImportEntry } from './entries';
import type { ImportFormat, SourceFile } from './sources';

/** How sure an import is that an entry is worth keeping: the person wrote it down, but for another agent. */
const IMPORT_CONFIDENCE = 0.9;

/** Why an entry was not proposed (the checks' reasons an import can meet). */
type RefusalReason = Extract<RejectionReason, 'flagged' | 'duplicate-in-batch' | 'already-in-inbox' | 'rejected-before' | 'already-in-memory'>;

/** Why an entry was left out unchecked: this import proposed as many as one may, or the inbox is full. */
export type LeftOutReason = 'import-cap' | 'inbox-full';

/**
 * What a person is told about entries left out (they can act on it: review the inbox, bring in
 * less). `from`: where the first of them is ("NOTES.md line 203").
 */
export function leftOutText(reason: LeftOutReason, count: number, options: { origin?: 'import' | 'adopt'; noun?: 'entry' | 'file'; from?: string } = {}): string {
  const { origin = 'import', noun = 'entry' } = options;
  const entries = `${count} ${count === 1 ? noun : noun === 'entry' ? 'entries' : 'files'}${options.from === undefined ? '' : ` (from ${options.from} on)`} ${count === 1 ? 'was' : 'were'}`;
  const again = origin === 'import' ? 'import again' : 'adopt it again';
  if (reason === 'import-cap') {
    const smaller = origin === 'import' ? 'or import a smaller file' : 'or adopt a few lines of it at a time';
    return `${entries} not proposed: one ${origin} proposes at most ${MAX_IMPORT_PROPOSALS}, as many as a person can review at once. Review these in the inbox, then ${again} (what is already proposed is not proposed twice), ${smaller}.`;
  }
  return `${entries} not proposed: ${inboxFullText(MAX_INBOX_PENDING, 'person')} Then ${again} (what is already proposed is not proposed twice).`;
}

export interface EntryOutcome {
  readonly shown: string;
  readonly line: number;
  readonly status: 'proposed' | 'present' | 'refused' | 'left-out';
  /** For `present` and `refused`: which check; for `left-out`: which bound. */
  readonly reason?: RefusalReason | LeftOutReason;
  /** For a flagged entry: what the scanners found, by rule (never the text). */
  readonly detail?: string;
  /** For `proposed`: the candidate (also in a dry run) and the inbox item made of it (not in a dry run). */
  readonly candidate?: Candidate;
  readonly item?: MemoryItem;
}

/** A category from the entry's words and headings, when its source gives none. */
function guessCategory(text: string, context: string | null): CandidateCategory {
  const about = context ?? '';
  if (/`[^`]+`/.test(text) && (/\b(commands?|build|test(s|ing)?|run(ning)?|scripts?|setup|develop(ment)?|workflow|deploy)/i.test(about) || /^(run|use|call|execute|start|invoke)\b/i.test(text))) return 'command';
  if (/\b(prefers?|preferences?|i like|i want|i'd rather|my)\b/i.test(text) || /\b(preferences?|user profile|about me|personal)\b/i.test(about)) return 'preference';
  if (/\b(lessons?|learned|gotchas?|pitfalls?|beware|turns out|caveats?)\b/i.test(`${text} ${about}`)) return 'lesson';
  if (/\b(always|never|must|should|don'?t|do not|avoid|instead of|rather than|prefer)\b/i.test(text) || /^(use|prefer)\b.+,\s*not\b/i.test(text) || /\b(conventions?|rules?|guidelines?|style|standards?)\b/i.test(about)) return 'convention';
  return 'fact';
}

/** An entry's category: what its source says, else a guess; Cursor's rules are conventions unless they say more. */
function categoryOf(format: ImportFormat, entry: ImportEntry): CandidateCategory {
  const guess = guessCategory(entry.text, entry.context);
  return format === 'cursor' && guess === 'fact' ? 'convention' : guess;
}

/** The entry as a memory: a short one ("pnpm") keeps its innermost heading ("Package manager: pnpm"). */
function memoryText(entry: ImportEntry): string {
  const words = entry.text.split(/\s+/).length;
  const heading = entry.context?.split(' > ').pop()?.trim();
  if (words <= 3 && heading && !/^tags: /.test(heading) && heading !== 'user profile') return `${heading.replace(/:$/, '')}: ${entry.text}`;
  return entry.text;
}

/** A scanner's finding by rule ("a secret (github-token)"), without any of the text. */
export function findingWords(f: Pick<ScanFinding, 'kind' | 'rule'>): string {
  return `${f.kind === 'secret' ? 'a secret' : 'an injected instruction'} (${f.rule})`;
}

/** What the scanners found in a text, by rule ("a secret (github-token)"), without any of it. */
function findingText(...texts: string[]): string {
  for (const text of texts) {
    const f = scanContent(text)[0];
    if (f) return findingWords(f);
  }
  return 'a secret or an injected instruction';
}

/** The agent an inbox item names (the inbox knows Claude Code's and Codex's; other sources name none). */
function sourceAgent(format: ImportFormat): TranscriptAgent | null {
  return format === 'claude' || format === 'codex' ? format : null;
}

export interface ProposeOptions {
  readonly format: ImportFormat;
  /** `import` (cairn import, the default) or `adopt` (Adopt in the app): the Inbox says which, and from which file. */
  readonly origin?: 'import' | 'adopt';
  readonly inbox: InboxStore;
  readonly session: MemorySession;
  /** Lines of every memory file the session sees (allMemoryLines). */
  readonly memoryLines: readonly string[];
  /** --scope: every entry goes there, whatever its source says. */
  readonly scope?: Scope | undefined;
  /** The checkout of the session (the inbox's approval finds the same session by it). */
  readonly cwd: string | null;
  /** Check and report, but add nothing to the inbox. */
  readonly dryRun?: boolean;
}

/**
 * The session's checkout on this machine, which an inbox item names so that its approval finds the
 * same session (`cairn inbox approve`); null for a remote workspace, found by its id.
 */
export function sessionCheckout(session: MemorySession): string | null {
  const binding = session.scopes.project;
  return binding.available && binding.runtime.label === 'local' ? binding.root.anchor : null;
}

/** The scope an entry goes to: --scope, else what its source says, else the file's default. */
export function entryScope(entry: ImportEntry, source: SourceFile, scope: Scope | undefined): Scope {
  return scope ?? entry.scope ?? source.scope;
}

/**
 * Checks every entry of the source files in order and puts those that pass in the inbox; returns
 * one outcome per entry. Memory, the inbox's pending and rejected texts are read once for them all:
 * what an earlier file adds is caught as a repeat of this import (`seen`) before the inbox's.
 */
export function proposeEntries(read: ReadonlyArray<{ readonly source: SourceFile; readonly entries: readonly ImportEntry[] }>, options: ProposeOptions): EntryOutcome[] {
  const memory = new Set(options.memoryLines.map(normalizedText).filter((l) => l.length > 0));
  const pending = new Set(options.inbox.pendingTexts().map(normalizedText));
  const rejected = new Set(options.inbox.rejectedTexts().map(normalizedText));
  /** The entries of this import so far (across its files). */
  const seen = new Set<string>();
  // The inbox's room as it is now; its add takes no more than it has then (another process may be adding too).
  const bounds: Bounds = { proposed: 0, room: options.inbox.room() };
  return read.flatMap(({ source, entries }) => proposeFile(source, entries, options, { memory, pending, rejected, seen }, bounds));
}

/** How many entries this import has proposed, and the inbox's room for them. */
interface Bounds {
  proposed: number;
  room: number;
}

function proposeFile(
  source: SourceFile,
  entries: readonly ImportEntry[],
  options: ProposeOptions,
  { memory, pending, rejected, seen }: { memory: Set<string>; pending: Set<string>; rejected: Set<string>; seen: Set<string> },
  bounds: Bounds,
): EntryOutcome[] {
  const itemSource: ItemSource = {
    agent: sourceAgent(options.format),
    sessionId: `${options.origin ?? 'import'}:${source.shown}`,
    cwd: options.cwd,
    workspaceId: options.session.workspaceId,
    projectId: options.session.projectId,
    extractor: `${options.origin ?? 'import'} (${options.format})`,
  };
  const outcomes: EntryOutcome[] = [];
  /** The outcomes proposed, whose items the inbox makes at the end, in one add. */
  const toAdd: Array<{ at: number; candidate: Candidate }> = [];
  for (const entry of entries) {
    // Past a bound, an entry is not checked: it is counted, with the bound that left it out.
    if (bounds.proposed >= MAX_IMPORT_PROPOSALS || bounds.proposed >= bounds.room) {
      outcomes.push({ shown: source.shown, line: entry.line, status: 'left-out', reason: bounds.proposed >= MAX_IMPORT_PROPOSALS ? 'import-cap' : 'inbox-full' });
      continue;
    }
    const id = `${source.shown}:${entry.line}`;
    const message: TranscriptMessage = { id, role: 'user', kind: 'text', text: entry.text, at: null, fromPerson: true, sidechain: false };
    const text = memoryText(entry);
    const candidate: Candidate = {
      category: entry.category ?? categoryOf(options.format, entry),
      text,
      scope: entryScope(entry, source, options.scope),
      evidence: [{ messageId: id, quote: entry.text, speaker: 'person', at: null }],
      confidence: IMPORT_CONFIDENCE,
      rationale: `Imported from ${source.shown}, line ${entry.line}${entry.context ? `, under "${entry.context}"` : ''}.`,
    };
    // The checks compare with these sets by normalized text; giving them only what matches keeps
    // each call small and answers as the whole sets would.
    const key = normalizedText(text);
    // A repeat of an entry proposed earlier in this import is counted as that, not as in the inbox.
    const only = (set: Set<string>) => (set.has(key) && !seen.has(key) ? [text] : []);
    const outcome = checkCandidates([candidate], [message], { inbox: only(pending), rejected: only(rejected), memoryLines: only(memory) }, 0, true);
    const reason = (Object.entries(outcome.rejected).find(([, n]) => n > 0)?.[0] ?? (seen.has(key) ? 'duplicate-in-batch' : null)) as RefusalReason | null;
    if (reason === 'flagged') {
      outcomes.push({ shown: source.shown, line: entry.line, status: 'refused', reason, detail: findingText(candidate.text, candidate.rationale, entry.text) });
      continue;
    }
    if (reason === 'rejected-before') {
      outcomes.push({ shown: source.shown, line: entry.line, status: 'refused', reason, detail: 'a person rejected the same text in the last 90 days' });
      continue;
    }
    if (reason !== null) {
      outcomes.push({ shown: source.shown, line: entry.line, status: 'present', reason });
      continue;
    }
    seen.add(key);
    bounds.proposed++;
    if (!options.dryRun) toAdd.push({ at: outcomes.length, candidate });
    outcomes.push({ shown: source.shown, line: entry.line, status: 'proposed', candidate });
  }
  if (toAdd.length === 0) return outcomes;
  const items = options.inbox.add(
    toAdd.map((a) => a.candidate),
    itemSource,
  );
  toAdd.forEach(({ at }, i) => {
    const o = outcomes[at]!;
    // The inbox took fewer than it had room for: another process filled it meanwhile.
    outcomes[at] = items[i] ? { ...o, item: items[i] } : { shown: o.shown, line: o.line, status: 'left-out', reason: 'inbox-full' };
  });
  return outcomes;
}
