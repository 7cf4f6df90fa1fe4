/**
 * The inbox (issue 19): what waits for a person, under `<home>/inbox/` (never in a memory root).
 * Two kinds of item: `memory`, a candidate from an agent's session that passed the host's checks;
 * `change`, an agent's write to a scope under review (review-mode.ts), with the file's text before
 * and after. One JSON file per item in `items/`, written whole (temp file and rename, 0600), so a
 * reader never sees half an item; and `rejected.jsonl`, the candidate texts a person rejected,
 * kept REJECTED_KEEP_DAYS so that the same candidate is not proposed again.
 *
 * Invariants: an item's id never changes and sorts by creation time; a decided item keeps what was
 * proposed and records what was decided, when and where it went; an item stored before kinds
 * existed (no `kind`) is a `memory` item; nothing here writes memory (approval goes through
 * MemoryService as the person: harvest-review.ts).
 */
import { changeTitle } from '../../common/api/inbox-text';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProposedChange } from '../memory/review-gate';
import type { Candidate, CandidateCategory } from './candidate';
import type { TranscriptAgent } from './transcript';

export const INBOX_DIR = 'inbox';
/** How long a rejected candidate's text keeps the same text from being proposed again. */
export const REJECTED_KEEP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;
const ID_RE = /^[0-9a-z]{9}-[0-9a-f]{8}$/;

/** Where a candidate came from. */
export interface ItemSource {
  /** The session's agent; null for a file a person imported or adopted (session `import:<file>`, `adopt:<file>`). */
  readonly agent: TranscriptAgent | null;
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
  readonly status: 'pending' | 'approved' | 'rejected';
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
}

/** An agent's write to a scope under review, computed but not made. */
export interface ChangeItem extends ItemBase {
  readonly kind: 'change';
  readonly change: ProposedChange;
  readonly source: ChangeSource;
}

export type InboxItem = MemoryItem | ChangeItem;

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

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = path.join(home, INBOX_DIR);
    this.itemsDir = path.join(this.dir, 'items');
    this.rejectedFile = path.join(this.dir, 'rejected.jsonl');
  }

  /** Puts candidates in the inbox, pending; returns the items made. */
  add(candidates: readonly Candidate[], source: ItemSource): MemoryItem[] {
    if (candidates.length === 0) return [];
    fs.mkdirSync(this.itemsDir, { recursive: true, mode: 0o700 });
    const createdAt = new Date(this.now()).toISOString();
    return candidates.map((candidate) => {
      const item: MemoryItem = { id: this.newId(), kind: 'memory', createdAt, status: 'pending', candidate, source, target: suggestedTarget(candidate) };
      this.write(item);
      return item;
    });
  }

  /** Puts an agent's change under review in the inbox, pending; returns the item. */
  addChange(change: ProposedChange, source: ChangeSource): ChangeItem {
    fs.mkdirSync(this.itemsDir, { recursive: true, mode: 0o700 });
    const item: ChangeItem = { id: this.newId(), kind: 'change', createdAt: new Date(this.now()).toISOString(), status: 'pending', change, source };
    this.write(item);
    return item;
  }

  /** The memory candidates, newest first (or only those of one status). */
  candidates(status?: InboxItem['status']): MemoryItem[] {
    return this.list(status).filter((i): i is MemoryItem => i.kind === 'memory');
  }

  /** Every item, newest first (or only those of one status). */
  list(status?: InboxItem['status']): InboxItem[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.itemsDir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith('.json') && ID_RE.test(n.slice(0, -5)))
      .sort()
      .reverse()
      .map((n) => this.read(n.slice(0, -5)))
      .filter((item): item is InboxItem => item !== null && (status === undefined || item.status === status));
  }

  get(id: string): InboxItem | null {
    return ID_RE.test(id) ? this.read(id) : null;
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
    if (decision.status === 'rejected' && item.kind === 'memory') {
      fs.appendFileSync(this.rejectedFile, `${JSON.stringify({ at: decidedAt, text: item.candidate.text })}\n`, { mode: 0o600 });
    }
    return next;
  }

  /** Texts of pending candidates (a new candidate repeating one is not proposed again). */
  pendingTexts(): string[] {
    return this.candidates('pending').map((i) => i.candidate.text);
  }

  /** Texts rejected in the last REJECTED_KEEP_DAYS. */
  rejectedTexts(): string[] {
    let text: string;
    try {
      text = fs.readFileSync(this.rejectedFile, 'utf8');
    } catch {
      return [];
    }
    const horizon = this.now() - REJECTED_KEEP_DAYS * DAY_MS;
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

  private read(id: string): InboxItem | null {
    try {
      const item = JSON.parse(fs.readFileSync(path.join(this.itemsDir, `${id}.json`), 'utf8')) as InboxItem | (Omit<MemoryItem, 'kind'> & { kind?: undefined });
      if (item.id !== id) return null;
      // Items stored before kinds existed are candidates.
      return item.kind === undefined ? { ...item, kind: 'memory' } : item;
    } catch {
      return null;
    }
  }

  private write(item: InboxItem): void {
    const file = path.join(this.itemsDir, `${item.id}.json`);
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify(item, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(temp, file);
  }
}
