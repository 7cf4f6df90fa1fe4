/**
 * The inbox: what waits for a person, under `<home>/inbox/` (never in a memory root).
 * Two kinds of item: `memory`, a candidate from an agent's session that passed the host's checks;
 * `change`, an agent's write to a scope under review (review-mode.ts), with the file's text before
 * and after. One JSON file per item in `items/`, written whole (the one write of Cairn's own files:
 * temp file, fsync, rename; 0600), so a
 * reader never sees half an item; `rejected.jsonl` and `approved.jsonl`, the candidate texts a
 * person rejected or approved (as proposed and as edited, wherever it went), kept
 * DECIDED_KEEP_DAYS so that nothing decided is proposed again (after a rewind, a fork, a reset).
 *
 * Invariants: an item's id never changes and sorts by creation time; a decided item keeps what was
 * proposed and records what was decided, when and where it went; an item stored before kinds
 * existed (no `kind`) is a `memory` item; nothing here writes memory (approval goes through
 * MemoryService as the person: harvest-review.ts).
 *
 * Bounds: this is the one place items are added, so the inbox holds at most MAX_INBOX_PENDING
 * pending items whoever proposes them (`add` takes what fits and the caller says why the rest was
 * not; `addChange` refuses with a text a model can act on), and a listing reads at most that many
 * items of what it asks for, newest first, counting the older files it did not read. A file of
 * `items/` that cannot be read as an item (not JSON, not an item's shape, not a regular file, too
 * large, misnamed) is listed as damaged with what is wrong, never hidden, and never rewritten or
 * removed here: the person looks at it and decides. A folder of items that cannot be read (EACCES,
 * EIO) is an error saying so, never an empty inbox; only a missing one is empty.
 */
import { z } from 'zod';
import { changeTitle, damagedItemText, inboxFullText, inboxUnreadableText } from '../../common/api/inbox-text';
import { MAX_INBOX_ITEM_BYTES, MAX_INBOX_PENDING, SCOPES } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeOwnFileSync } from '../runtime/local/atomic-write';
import { errnoOf, namesIn } from '../runtime/local/containment';
import { holdEdit, releaseEdit } from '../memory/held-outside-edits';
import type { ProposedChange } from '../memory/review-gate';
import { CANDIDATE_CATEGORIES, type Candidate, type CandidateCategory } from './candidate';
import type { HarvestAgent } from '../../common/api/harvest-status-text';

export const INBOX_DIR = 'inbox';
/** How long a decided candidate's text keeps the same text from being proposed again. */
export const DECIDED_KEEP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;
const ID_RE = /^[0-9a-z]{9}-[0-9a-f]{8}$/;
/** The problem of a file that is not there (read between a listing and a decision): no item, not damaged. */
const MISSING = 'it is gone';

/** Where a candidate came from. */
export interface ItemSource {
  /** The session's agent; null for a file a person imported or adopted (session `import:<file>`, `adopt:<file>`). */
  readonly agent: HarvestAgent | null;
  readonly sessionId: string;
  readonly cwd: string | null;
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  /** The extractor that proposed it ('rules', 'agent', 'command', 'http'). */
  readonly extractor: string;
}

interface ItemBase {
  readonly id: string;
  readonly createdAt: string;
  /**
   * `held`: a candidate a long session's run found past the most a run proposes (less confident
   * than those it proposed), kept where a person can see and decide it but not asked about.
   */
  readonly status: 'pending' | 'held' | 'approved' | 'rejected';
  /** Once decided: when, and for an approval the file it went to. */
  readonly decidedAt?: string;
  readonly approvedTo?: string;
}

/** A memory proposed from an agent's session. */
export interface MemoryItem extends ItemBase {
  readonly kind: 'memory';
  readonly candidate: Candidate;
  readonly source: ItemSource;
  /** The memory file it would be added to, unless the person chooses another. */
  readonly target: string;
  /** Once approved: the text written. */
  readonly approvedText?: string;
}

/** Where an agent's change under review was made: the session's owners, and its checkout. */
export interface ChangeSource {
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  /** The scope's owner when proposed (`global`, `project:<id>`, `workspace:<id>`): an approval must write to the same one. */
  readonly owner: string;
  /** The local checkout of the session's project, for the CLI to find the same session; null when none. */
  readonly cwd: string | null;
  /**
   * A change from elsewhere rather than an agent's: a sync's incoming version of a file, with the
   * remote (as shown: no credentials) and commit it came from, what a scanner flagged in it, and
   * whether this machine changed the file too (a conflict: approving takes the remote's side); or
   * project memory a `git pull` brought into the checkout, with the commit and its author.
   */
  readonly from?: SyncOrigin | PullOrigin;
}

export interface SyncOrigin {
  readonly kind: 'sync';
  readonly remote: string;
  readonly commit: string;
  readonly flag: string | null;
  readonly conflict?: boolean;
}

/**
 * Project memory that arrived with a commit (a pull, a merge, a checkout) and is held: the text is
 * in the checkout already, as git wrote it, but reaches no agent until a person approves it
 * (pulled-memory.ts). `flag`: what the scanners found in it; null when held for review mode alone.
 */
export interface PullOrigin {
  readonly kind: 'pull';
  readonly commit: string;
  /** The commit's author, as git gives it ("Name <email>"). */
  readonly author: string;
  readonly flag: string | null;
}

/** An agent's write to a scope under review, computed but not made. */
export interface ChangeItem extends ItemBase {
  readonly kind: 'change';
  readonly change: ProposedChange;
  readonly source: ChangeSource;
}

export type InboxItem = MemoryItem | ChangeItem;

/** A file of the inbox that is no item Cairn can read; listed so that the person sees it. */
export interface DamagedItem {
  /** The file's name without `.json` (an item's id, when it is named like one). */
  readonly id: string;
  /** The file, on this machine (shown to the person only). */
  readonly file: string;
  /** What is wrong with it, in a few words (never its content). */
  readonly problem: string;
  /** When it was proposed, from its name (an item's id starts with the time); else its last change. */
  readonly createdAt: string | null;
}

/** One listing of the inbox: the items asked for, the damaged files met, and how many older files were not read. */
export interface InboxListing {
  readonly items: InboxItem[];
  readonly damaged: DamagedItem[];
  /** Files older than the last one read, left unread because the listing had its fill. */
  readonly unread: number;
}

/** The words of a damaged file, for the CLI's and the API's refusals. */
function damagedText(damaged: DamagedItem): string {
  return damagedItemText(damaged.file, damaged.problem);
}

/** Refused because the inbox holds MAX_INBOX_PENDING pending items (its text names no host path: a model may read it). */
export class InboxFullError extends MemoryToolError {}

/**
 * Refused because the item's file is damaged. Its text names the file on this machine, so it is
 * thrown only to a person (`cairn inbox`, the app's inbox routes), never in a model's answer.
 */
export class DamagedItemError extends MemoryToolError {
  constructor(readonly damaged: DamagedItem) {
    super(damagedText(damaged));
  }
}

// What a stored item must hold to be shown and decided; fields it may hold besides are kept.
const evidenceShape = z.object({ messageId: z.string(), quote: z.string(), speaker: z.enum(['person', 'agent', 'tool']).nullish(), at: z.string().nullish() });
const decidedShape = {
  id: z.string(),
  createdAt: z.string(),
  status: z.enum(['pending', 'held', 'approved', 'rejected']),
  decidedAt: z.string().optional(),
  approvedTo: z.string().optional(),
};
const memoryItemShape = z.object({
  ...decidedShape,
  kind: z.literal('memory').optional(),
  candidate: z.object({ category: z.enum(CANDIDATE_CATEGORIES), text: z.string(), scope: z.enum(SCOPES), evidence: z.array(evidenceShape), confidence: z.number(), rationale: z.string() }),
  source: z.object({ agent: z.enum(['claude', 'codex', 'copilot', 'gemini']).nullable(), sessionId: z.string(), cwd: z.string().nullable(), workspaceId: z.string().nullable(), projectId: z.string().nullable(), extractor: z.string() }),
  target: z.string(),
  approvedText: z.string().optional(),
});
const changeItemShape = z.object({
  ...decidedShape,
  kind: z.literal('change'),
  change: z.object({
    command: z.enum(['create', 'str_replace', 'insert', 'delete', 'rename']),
    scope: z.enum(SCOPES),
    path: z.string(),
    newPath: z.string().nullable(),
    before: z.string().nullable(),
    beforeSha256: z.string().nullable(),
    after: z.string().nullable(),
  }),
  source: z.object({
    workspaceId: z.string().nullable(),
    projectId: z.string().nullable(),
    owner: z.string(),
    cwd: z.string().nullable(),
    from: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('sync'), remote: z.string(), commit: z.string(), flag: z.string().nullable(), conflict: z.boolean().optional() }),
        z.object({ kind: z.literal('pull'), commit: z.string(), author: z.string(), flag: z.string().nullable() }),
      ])
      .optional(),
  }),
});

/** The first thing wrong with a stored item, in a few words ("candidate.text: expected a string"), or null. */
function shapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is JSON, but not an object';
  const kind = (value as { kind?: unknown }).kind;
  if (kind !== undefined && kind !== 'memory' && kind !== 'change') return 'its kind is neither memory nor change';
  const parsed = (kind === 'change' ? changeItemShape : memoryItemShape).safeParse(value);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return issue ? `it is JSON, but not an inbox item (${issue.path.join('.') || 'the item'}: ${issue.message.toLowerCase()})` : 'it is JSON, but not an inbox item';
}

/** One line saying what an agent's change does, for lists ("Edit /memories/project/notes.md (str_replace)"). */
export function changeSummary(change: ProposedChange): string {
  return changeTitle(change, true);
}

/** The file each category of candidate goes to, in the scope it suits. */
export const TARGET_FILES: Readonly<Record<CandidateCategory, string>> = { preference: 'preferences.md', convention: 'conventions.md', fact: 'facts.md', command: 'commands.md', lesson: 'lessons.md' };

/** The memory file a candidate suits: its category's file in its scope. */
export function suggestedTarget(candidate: Pick<Candidate, 'category' | 'scope'>): string {
  return `/memories/${candidate.scope}/${TARGET_FILES[candidate.category]}`;
}

let idSeq = 0;

export class InboxStore {
  readonly dir: string;
  private readonly itemsDir: string;
  private readonly rejectedFile: string;
  private readonly approvedFile: string;

  constructor(
    private readonly home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = path.join(home, INBOX_DIR);
    this.itemsDir = path.join(this.dir, 'items');
    this.rejectedFile = path.join(this.dir, 'rejected.jsonl');
    this.approvedFile = path.join(this.dir, 'approved.jsonl');
  }

  /**
   * Puts candidates in the inbox, pending, as many as it has room for (the first ones); returns the
   * items made. Fewer items than candidates: the inbox is full, and the caller says so (inboxFullText).
   */
  add(candidates: readonly Candidate[], source: ItemSource): MemoryItem[] {
    return this.addPending(candidates, (candidate, id, createdAt) => ({ id, kind: 'memory', createdAt, status: 'pending', candidate, source, target: suggestedTarget(candidate) }));
  }

  /**
   * Keeps candidates held back (a run's over its limit), as many as there is room for beside the
   * MAX_INBOX_PENDING held ones already kept; returns the items made. Held items count against no
   * pending room: they wait for a person to look, never ask.
   */
  hold(candidates: readonly Candidate[], source: ItemSource): MemoryItem[] {
    if (candidates.length === 0) return [];
    const room = Math.max(0, MAX_INBOX_PENDING - this.list('held').length);
    return this.addUpTo(candidates, room, (candidate, id, createdAt) => ({ id, kind: 'memory', createdAt, status: 'held', candidate, source, target: suggestedTarget(candidate) }));
  }

  /** Puts an agent's change under review in the inbox, pending; returns the item. InboxFullError when it is full. */
  addChange(change: ProposedChange, source: ChangeSource): ChangeItem {
    const [item] = this.addChanges([{ change, source }]);
    if (!item) throw new InboxFullError(inboxFullText(MAX_INBOX_PENDING));
    return item;
  }

  /** Puts changes in the inbox, pending, as many as it has room for (the first ones); returns the items made. */
  addChanges(changes: ReadonlyArray<{ readonly change: ProposedChange; readonly source: ChangeSource }>): ChangeItem[] {
    return this.addPending(changes, ({ change, source }, id, createdAt) => ({ id, kind: 'change', createdAt, status: 'pending', change, source }));
  }

  /** Writes an item of each of the first `what` the inbox has room for (the cap's one place). */
  private addPending<T, I extends InboxItem>(what: readonly T[], make: (one: T, id: string, createdAt: string) => I): I[] {
    return what.length === 0 ? [] : this.addUpTo(what, this.room(), make);
  }

  /** Writes an item of each of the first `room` of `what`, all made at one time. */
  private addUpTo<T, I extends InboxItem>(what: readonly T[], room: number, make: (one: T, id: string, createdAt: string) => I): I[] {
    if (room === 0) return [];
    fs.mkdirSync(this.itemsDir, { recursive: true, mode: 0o700 });
    const createdAt = new Date(this.now()).toISOString();
    return what.slice(0, room).map((one) => {
      const item = make(one, this.newId(), createdAt);
      this.write(item);
      return item;
    });
  }

  /** The memory candidates, newest first (or only those of one status). */
  candidates(status?: InboxItem['status']): MemoryItem[] {
    return this.list(status).filter((i): i is MemoryItem => i.kind === 'memory');
  }

  /** Every item, newest first (or only those of one status), at most MAX_INBOX_PENDING of them; damaged files are left out (listing shows them). */
  list(status?: InboxItem['status']): InboxItem[] {
    return this.listing(status).items;
  }

  /** How many more items the inbox takes before it holds MAX_INBOX_PENDING pending ones. */
  room(): number {
    return Math.max(0, MAX_INBOX_PENDING - this.list('pending').length);
  }

  /**
   * The items, newest first (or only those of one status), and the damaged files among those read.
   * Reads newest first and stops once it has `limit` items (and at most `limit` damaged files), so
   * that however many files the folder holds, a listing costs at most about that many reads.
   */
  listing(status?: InboxItem['status'], limit = MAX_INBOX_PENDING): InboxListing {
    const names = this.fileNames();
    const items: InboxItem[] = [];
    const damaged: DamagedItem[] = [];
    let at = 0;
    for (; at < names.length && items.length < limit && damaged.length < limit; at++) {
      const read = this.read(names[at]!.slice(0, -5));
      if ('problem' in read) {
        if (read.problem !== MISSING) damaged.push(read);
      }
      else if (status === undefined || read.status === status) items.push(read);
    }
    return { items, damaged, unread: names.length - at };
  }

  get(id: string): InboxItem | null {
    const found = this.lookup(id);
    return found === null || 'problem' in found ? null : found;
  }

  /** The item of `id`, or what is wrong with its file; null when there is no such file. */
  lookup(id: string): InboxItem | DamagedItem | null {
    // Any name listed as damaged can be asked about; never one that leaves the folder.
    if (!/^[^/\\\0]+$/.test(id) || id.startsWith('.')) return null;
    if (!ID_RE.test(id) && !this.fileNames().includes(`${id}.json`)) return null;
    const found = this.read(id);
    return 'problem' in found && found.problem === MISSING ? null : found;
  }

  /**
   * Records a person's decision (`text`: a candidate's text as written); rejecting a candidate also
   * keeps its text from being proposed again (a change is not a text to remember).
   */
  decide(id: string, decision: { status: 'approved'; to: string; text?: string } | { status: 'rejected' }): InboxItem {
    const item = this.get(id);
    if (!item) throw new Error(`no inbox item ${id}`);
    const decidedAt = new Date(this.now()).toISOString();
    const next: InboxItem =
      decision.status === 'approved'
        ? { ...item, status: 'approved', decidedAt, approvedTo: decision.to, ...(item.kind === 'memory' && decision.text !== undefined ? { approvedText: decision.text } : {}) }
        : { ...item, status: 'rejected', decidedAt };
    this.write(next);
    if (item.kind === 'memory') {
      const texts = decision.status === 'approved' && decision.text !== undefined && decision.text !== item.candidate.text ? [item.candidate.text, decision.text] : [item.candidate.text];
      const lines = texts.map((text) => `${JSON.stringify({ at: decidedAt, text })}\n`).join('');
      appendLines(decision.status === 'rejected' ? this.rejectedFile : this.approvedFile, lines);
    }
    return next;
  }

  /**
   * Puts an approved item back to pending, as it was proposed (its approval was undone: what it
   * wrote is gone, so the decision is the person's to make again). Null when there is no such
   * approved item.
   */
  reopen(id: string): InboxItem | null {
    const item = this.get(id);
    if (!item || item.status !== 'approved') return null;
    const { decidedAt: _decided, approvedTo: _to, ...rest } = item;
    const next = { ...rest, status: 'pending' } as InboxItem;
    if (next.kind === 'memory') delete (next as { approvedText?: string }).approvedText;
    this.write(next);
    return next;
  }

  /** Texts of the candidates waiting, pending or held (a new candidate repeating one is not proposed again). */
  pendingTexts(): string[] {
    return [...this.candidates('pending'), ...this.candidates('held')].map((i) => i.candidate.text);
  }

  /**
   * Housekeeping, at most once a day (a stamp file's mtime): removes the items decided more than
   * DECIDED_KEEP_DAYS ago, held items proposed longer ago than that, and the lines of the decided
   * texts older than that; pending items and damaged files are never touched. Returns how many items went, or null when it was done less
   * than a day ago.
   */
  prune(): number | null {
    const stamp = path.join(this.dir, 'pruned');
    const now = this.now();
    try {
      if (now - fs.statSync(stamp).mtimeMs < DAY_MS) return null;
    } catch {
      // Never pruned (or the stamp cannot be seen): prune now; its write below says if it cannot.
    }
    const horizon = now - DECIDED_KEEP_DAYS * DAY_MS;
    let removed = 0;
    for (const name of this.fileNames()) {
      const id = name.slice(0, -5);
      // Ids begin with their creation time: an item made since the horizon was decided since too.
      if (!ID_RE.test(id) || parseInt(id.slice(0, 9), 36) >= horizon) continue;
      const item = this.read(id);
      if ('problem' in item) continue;
      const stale = item.status === 'held' || (item.status !== 'pending' && item.decidedAt !== undefined && Date.parse(item.decidedAt) < horizon);
      if (!stale) continue;
      fs.rmSync(path.join(this.itemsDir, name), { force: true });
      removed++;
    }
    for (const file of [this.rejectedFile, this.approvedFile]) {
      let fd: number;
      try {
        fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      } catch {
        // Nothing decided yet, or it cannot be opened: left as it is (pruning is housekeeping, and
        // the readers of decided texts report a file they cannot read).
        continue;
      }
      try {
        const text = fs.readFileSync(fd, 'utf8');
        const read = Buffer.byteLength(text);
        const kept = text.split('\n').filter((line) => {
          try {
            return Date.parse((JSON.parse(line) as { at: string }).at) >= horizon;
          } catch {
            return false; // a torn or empty line: dropped with the old ones
          }
        });
        const next = kept.length ? `${kept.join('\n')}\n` : '';
        if (next === text) continue;
        writeOwnFileSync(file, next);
        // Lines a decision appended to the old file meanwhile go into the new one (a decision
        // that appends after this looks again: appendLines).
        const size = fs.fstatSync(fd).size;
        if (size > read) {
          const tail = Buffer.alloc(size - read);
          fs.readSync(fd, tail, 0, tail.length, read);
          appendLines(file, tail.toString('utf8'));
        }
      } finally {
        fs.closeSync(fd);
      }
    }
    writeOwnFileSync(stamp, `${new Date(now).toISOString()}\n`, { mtimeMs: now });
    return removed;
  }

  /** Texts rejected in the last DECIDED_KEEP_DAYS. */
  rejectedTexts(): string[] {
    return this.decidedTexts(this.rejectedFile);
  }

  /** Texts approved in the last DECIDED_KEEP_DAYS, as proposed and as the person edited them. */
  approvedTexts(): string[] {
    return this.decidedTexts(this.approvedFile);
  }

  private decidedTexts(file: string): string[] {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      // Nothing decided yet. A file that is there but cannot be read is no empty record: what the
      // person rejected would be proposed to them again.
      const code = errnoOf(err);
      if (code === 'ENOENT') return [];
      throw new MemoryToolError(inboxUnreadableText(code));
    }
    const horizon = this.now() - DECIDED_KEEP_DAYS * DAY_MS;
    const out: string[] = [];
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as { at?: unknown; text?: unknown };
        if (typeof entry.text === 'string' && typeof entry.at === 'string' && Date.parse(entry.at) >= horizon) out.push(entry.text);
      } catch {
        // A torn or empty line: skipped.
      }
    }
    return out;
  }

  /** Time first, then this process's count (items made in one millisecond keep their order), then chance. */
  private newId(): string {
    idSeq = (idSeq + 1) % 0x10000;
    return `${this.now().toString(36).padStart(9, '0')}-${idSeq.toString(16).padStart(4, '0')}${randomBytes(2).toString('hex')}`;
  }

  /** The `.json` files of items/, newest first (an item's name sorts by its time); temp files are no items. */
  private fileNames(): string[] {
    // No folder yet: nothing was ever proposed. A folder that is there but cannot be read is no
    // empty inbox: a person told "empty" would never look for what waits.
    return namesIn(this.itemsDir, (code) => new MemoryToolError(inboxUnreadableText(code)))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort()
      .reverse();
  }

  /** The item stored as `<id>.json`, or what is wrong with that file. */
  private read(id: string): InboxItem | DamagedItem {
    const file = path.join(this.itemsDir, `${id}.json`);
    const damaged = (problem: string, mtimeMs?: number): DamagedItem => ({
      id,
      file,
      problem,
      createdAt: ID_RE.test(id) ? new Date(parseInt(id.slice(0, 9), 36)).toISOString() : mtimeMs === undefined ? null : new Date(mtimeMs).toISOString(),
    });
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(file);
    } catch (err) {
      // Only a file that is not there is missing; one that cannot be looked at is said so.
      const code = errnoOf(err);
      return damaged(code === 'ENOENT' ? MISSING : `it cannot be read (${code})`);
    }
    // Not opened unless a regular file: a FIFO would block the read, a link may lead anywhere.
    if (!stat.isFile()) return damaged(stat.isSymbolicLink() ? 'it is a symbolic link, not a file Cairn wrote' : 'it is not a regular file', stat.mtimeMs);
    if (stat.size > MAX_INBOX_ITEM_BYTES) return damaged(`it is ${stat.size} bytes, larger than any item Cairn writes (${MAX_INBOX_ITEM_BYTES})`, stat.mtimeMs);
    if (!ID_RE.test(id)) return damaged('its name is not that of an inbox item (an id such as 0mx12inr7-0001214a)', stat.mtimeMs);
    let value: unknown;
    try {
      value = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return damaged(MISSING);
      // The parser's message may quote the file; only that it does not parse is said.
      return damaged(err instanceof SyntaxError ? 'it is not valid JSON' : `it cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, stat.mtimeMs);
    }
    const problem = shapeProblem(value);
    if (problem) return damaged(problem, stat.mtimeMs);
    const item = value as InboxItem | (Omit<MemoryItem, 'kind'> & { kind?: undefined });
    if (item.id !== id) return damaged('the id it holds is not its file name', stat.mtimeMs);
    // Items stored before kinds existed are candidates.
    return item.kind === undefined ? { ...item, kind: 'memory' } : item;
  }

  /**
   * Written whole by the one write of Cairn's own files (temp, fsync, rename; no temp left on
   * failure). A pulled file's item holds the file back from agents while it is pending, from before
   * the item is listed until after it is decided (held-outside-edits.ts).
   */
  private write(item: InboxItem): void {
    const pulled = item.kind === 'change' && item.source.from?.kind === 'pull';
    const waiting = item.status === 'pending' || item.status === 'held';
    if (pulled && waiting) holdEdit(this.home, item.id, { owner: item.source.owner, path: item.change.path });
    writeOwnFileSync(path.join(this.itemsDir, `${item.id}.json`), `${JSON.stringify(item, null, 2)}\n`);
    if (pulled && !waiting) releaseEdit(this.home, item.id);
  }
}

/**
 * Appends whole lines to a decided-texts log, and again when the log was replaced meanwhile (a
 * prune rewrote it between this open and this write), so no decision is lost; a line twice is
 * harmless (the texts are a set).
 */
function appendLines(file: string, lines: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
    let same: boolean;
    try {
      fs.writeSync(fd, lines);
      const written = fs.fstatSync(fd);
      const now = fs.statSync(file, { throwIfNoEntry: false });
      same = now !== undefined && now.ino === written.ino && now.dev === written.dev;
    } finally {
      fs.closeSync(fd);
    }
    if (same) return;
  }
}
