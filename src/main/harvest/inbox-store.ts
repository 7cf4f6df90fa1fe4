/**
 * The inbox (issue 19): candidates that passed the host's checks, waiting for a person, under
 * `<home>/inbox/` (never in a memory root): one JSON file per item in `items/`, written whole (temp
 * file and rename, 0600), so a reader never sees half an item; and `rejected.jsonl`, the texts a
 * person rejected, kept REJECTED_KEEP_DAYS so that the same candidate is not proposed again.
 *
 * Invariants: an item's id never changes and sorts by creation time; a decided item keeps its
 * candidate and records what was decided, by whom and where it went; nothing here writes memory
 * (approval goes through MemoryService as the person: harvest-review.ts).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Candidate, CandidateCategory } from './candidate';
import type { TranscriptAgent } from './transcript';

export const INBOX_DIR = 'inbox';
/** How long a rejected candidate's text keeps the same text from being proposed again. */
export const REJECTED_KEEP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;
const ID_RE = /^[0-9a-z]{9}-[0-9a-f]{8}$/;

/** Where a candidate came from. */
export interface ItemSource {
  readonly agent: TranscriptAgent;
  readonly sessionId: string;
  readonly cwd: string | null;
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  /** The extractor that proposed it ('rules', 'agent', 'command', 'http'). */
  readonly extractor: string;
}

export interface InboxItem {
  readonly id: string;
  readonly createdAt: string;
  readonly status: 'pending' | 'approved' | 'rejected';
  readonly candidate: Candidate;
  readonly source: ItemSource;
  /** The memory file it would be added to, unless the person chooses another. */
  readonly target: string;
  /** Once decided: when, and for an approval the file it went to and the text written. */
  readonly decidedAt?: string;
  readonly approvedTo?: string;
  readonly approvedText?: string;
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
  add(candidates: readonly Candidate[], source: ItemSource): InboxItem[] {
    if (candidates.length === 0) return [];
    fs.mkdirSync(this.itemsDir, { recursive: true, mode: 0o700 });
    const createdAt = new Date(this.now()).toISOString();
    return candidates.map((candidate) => {
      const item: InboxItem = { id: this.newId(), createdAt, status: 'pending', candidate, source, target: suggestedTarget(candidate) };
      this.write(item);
      return item;
    });
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

  /** Records a person's decision; a rejection also keeps the text from being proposed again. */
  decide(id: string, decision: { status: 'approved'; to: string; text: string } | { status: 'rejected' }): InboxItem {
    const item = this.get(id);
    if (!item) throw new Error(`no inbox item ${id}`);
    const decidedAt = new Date(this.now()).toISOString();
    const next: InboxItem =
      decision.status === 'approved'
        ? { ...item, status: 'approved', decidedAt, approvedTo: decision.to, approvedText: decision.text }
        : { ...item, status: 'rejected', decidedAt };
    this.write(next);
    if (decision.status === 'rejected') {
      fs.appendFileSync(this.rejectedFile, `${JSON.stringify({ at: decidedAt, text: item.candidate.text })}\n`, { mode: 0o600 });
    }
    return next;
  }

  /** Texts of pending items (a new candidate repeating one is not proposed again). */
  pendingTexts(): string[] {
    return this.list('pending').map((i) => i.candidate.text);
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
      const item = JSON.parse(fs.readFileSync(path.join(this.itemsDir, `${id}.json`), 'utf8')) as InboxItem;
      return item.id === id ? item : null;
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
