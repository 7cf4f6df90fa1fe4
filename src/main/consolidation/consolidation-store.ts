/**
 * Consolidation proposals on disk: `<home>/sweeps/<id>.json`, one per proposal, 0600,
 * written whole (runtime/local/atomic-write.ts: temp file, fsync, rename), so a reader never sees
 * half a proposal.
 *
 * Invariants: at most one proposal per scope root is `open`: saving a new one marks the older open
 * ones `replaced` (with the new id), so an old proposal can never be applied over a newer view; an
 * open proposal past its expiry reads as `expired`; records are kept (discarding leaves the record,
 * nothing else) and collected after RECORD_KEEP_MS. A file that does not parse is never fatal: it is
 * set aside as `<id>.json.damaged-<time>` and reported (on stderr), and the proposal is gone.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONSOLIDATION_ID_RE, consolidationProposalSchema, type ConsolidationProposal } from '../../common/consolidation/proposal';
import { readOwnFileParsed, writeOwnFileSync } from '../runtime/local/atomic-write';

export const CONSOLIDATIONS_DIR = 'sweeps';
/** Records of proposals (applied, discarded, replaced, expired) are kept this long. */
const RECORD_KEEP_MS = 90 * 24 * 60 * 60 * 1000;

/** A new proposal's id: its time (base36 ms, sortable) and 8 random hex digits. */
export function newConsolidationId(now: number): string {
  return `${now.toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
}

export class ConsolidationStore {
  readonly dir: string;

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = path.join(home, CONSOLIDATIONS_DIR);
  }

  /** A proposal by id, its state as of now (an open one past its expiry is `expired`); null if unknown. */
  get(id: string): ConsolidationProposal | null {
    if (!CONSOLIDATION_ID_RE.test(id)) return null;
    return this.read(path.join(this.dir, `${id}.json`));
  }

  /** Every proposal (of `owner` when given), newest first. */
  list(owner?: string): ConsolidationProposal[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith('.json') && CONSOLIDATION_ID_RE.test(n.slice(0, -5)))
      .map((n) => this.read(path.join(this.dir, n)))
      .filter((p): p is ConsolidationProposal => p !== null && (owner === undefined || p.owner === owner))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  }

  /** Saves a new open proposal: older open ones of its scope root are replaced; old records collected. */
  add(proposal: ConsolidationProposal): void {
    for (const older of this.list(proposal.owner)) {
      if (older.state === 'open' && older.id !== proposal.id) this.write({ ...older, state: 'replaced', replacedBy: proposal.id });
    }
    this.write(proposal);
    this.collect();
  }

  /** Writes a proposal whole (0600). */
  write(proposal: ConsolidationProposal): void {
    writeOwnFileSync(path.join(this.dir, `${proposal.id}.json`), `${JSON.stringify(proposal, null, 1)}\n`);
  }

  private collect(): void {
    const cut = this.now() - RECORD_KEEP_MS;
    for (const p of this.list()) {
      if (p.state !== 'open' && Date.parse(p.createdAt) < cut) fs.rmSync(path.join(this.dir, `${p.id}.json`), { force: true });
    }
  }

  private read(file: string): ConsolidationProposal | null {
    const parsed = readOwnFileParsed(file, parseProposal);
    if (parsed === null) return null;
    return parsed.state === 'open' && Date.parse(parsed.expiresAt) <= this.now() ? { ...parsed, state: 'expired' } : parsed;
  }
}

/** A proposal's file's text as a proposal; throws, saying what is wrong, when it is not one. */
function parseProposal(text: string): ConsolidationProposal {
  const parsed = consolidationProposalSchema.safeParse(JSON.parse(text));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(`it is not a consolidation proposal (${issue ? `${issue.path.join('.') || 'the whole'}: ${issue.message}` : 'its shape'})`);
}
