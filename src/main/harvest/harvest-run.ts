/**
 * One harvest of one transcript: the segment not harvested yet, an extractor's candidates for it,
 * the host's checks, and the inbox.
 *
 * Segments are keyed by message ids: `<home>/harvest/sessions/<agent>-<digest of the session
 * id>.json` holds the id of the last message harvested. The next harvest takes the messages after
 * it; when that id is no longer in the transcript (shortened or rewritten), it starts over and the
 * checks' dedupe absorbs what was proposed before. A harvest holds a lock on its session's state
 * (two triggers at once: the second answers 'busy' and calls no extractor), and a segment with no
 * new message calls no extractor either. The state is written whole (runtime/local/atomic-write.ts);
 * one that does not parse is set aside as `<name>.damaged-<time>` and reported, and the session is
 * harvested from its start (the checks' dedupe absorbs what was proposed before).
 *
 * A long session is harvested chunk by chunk (a model backend's chunks): each chunk's candidates
 * are checked as its answer comes, and the state then records that chunk's last message and the
 * candidates the run has taken so far, so a run that stops (a crash, a failed call, the budget)
 * is resumed after the last chunk done and asks nothing twice. When the run ends, the most
 * confident MAX_PER_SEGMENT go to the inbox, pending; the rest are kept in it as held, where a
 * person sees them, and are never asked about. A run sends at most its budget (calls, characters):
 * reaching it ends the run with what it found, and the rest of the session waits for the next one.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readOwnFileParsed, writeOwnFileSync } from '../runtime/local/atomic-write';
import { takeLeaseSync } from '../runtime/local/file-lock';
import type { Candidate } from '../inbox/candidate';
import { HARVEST_PROMPT_MARKER } from './extractors/prompt';
import { HARVEST_DIR, HARVEST_SESSIONS_DIR } from './harvest-jobs';
import { checkCandidates, DEFAULT_MIN_CONFIDENCE, MAX_PER_SEGMENT, noRejections, normalizedText, REJECTION_REASONS, type RejectionReason } from './checks';
import { DECIDED_KEEP_DAYS, type InboxStore, type ItemSource, type MemoryItem } from '../inbox/inbox-store';
import { isCairnsOwn, speakerOf, type Transcript, type TranscriptMessage } from './transcript';


/** What proposes candidates from a segment (rules, the agent, a command, an HTTP model). */
export interface Extractor {
  readonly name: string;
  extract(segment: readonly TranscriptMessage[], options?: ExtractOptions): Promise<Candidate[]>;
}

export interface ExtractOptions {
  /** A model backend that splits a long segment says which chunk it is on (1-based). */
  readonly onChunk?: (index: number, count: number) => void;
  /**
   * A model backend says what it set aside of an answer: items in no candidate's shape (counted as
   * `malformed`) and items past the most an answer may hold (counted as `over-limit`).
   */
  readonly onDiscarded?: (counts: { readonly malformed: number; readonly overLimit: number }) => void;
  /**
   * A backend that splits a segment into chunks hands each chunk's candidates here once its answer
   * is read, with the id of the chunk's last message, and returns from extract only what it did not
   * hand over: the run records each chunk as done as it goes.
   */
  readonly onChunkDone?: (chunk: { readonly candidates: readonly Candidate[]; readonly lastId: string }) => void;
  /** Asked before each call to a model with its prompt's characters: false ends the extraction there (the run's budget). */
  readonly mayCall?: (chars: number) => boolean;
  /** A model backend says what each call sent: the prompt's characters, and the tokens the API reported. */
  readonly onCall?: (call: { readonly chars: number; readonly tokens?: { readonly input: number; readonly output: number } }) => void;
}

/** What a run sent to a model: calls, characters, and tokens when every call's API reported them. */
export interface ModelCost {
  readonly calls: number;
  readonly chars: number;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
}

export interface HarvestRequest {
  readonly home: string;
  readonly transcript: Transcript;
  readonly extractor: Extractor;
  readonly inbox: InboxStore;
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  /** Lines of the memory files candidates could go to (a repeat of one is not proposed). */
  readonly memoryLines: readonly string[];
  /** Check and report, but change nothing: no inbox item, the segment not marked harvested. */
  readonly dryRun?: boolean;
  readonly minConfidence?: number;
  readonly onChunk?: (index: number, count: number) => void;
  /** The most the run may send to a model; none: no limit. */
  readonly budget?: HarvestBudget;
}

export interface HarvestSummary {
  /** `own-run`: a session Cairn's own extraction started (`claude -p`, `codex exec`), never harvested. */
  readonly status: 'harvested' | 'nothing-new' | 'busy' | 'own-run';
  /** Messages in the segment (after the last one harvested). */
  readonly segmentMessages: number;
  /** Whether the segment started over (the last harvested message was gone). */
  readonly restarted: boolean;
  readonly extractorCalled: boolean;
  /** Candidates that passed the checks: inbox items, or (dry run) the candidates themselves. */
  readonly proposed: ReadonlyArray<MemoryItem | Candidate>;
  /** Candidates that passed past the most a run proposes: kept in the inbox as held (dry run: counted). */
  readonly heldBack: number;
  readonly rejected: Readonly<Record<RejectionReason, number>>;
  /** What the run sent to a model (none: zero calls), a resumed run's earlier calls included. */
  readonly cost: ModelCost;
  /** The run reached its budget: the rest of the session waits for the next run. */
  readonly stopped: BudgetStop | null;
}

/** No model asked. */
export const NO_COST: ModelCost = { calls: 0, chars: 0, inputTokens: null, outputTokens: null };

/** What a run that has not ended took and spent so far (it ends when its last chunk is checked). */
interface RunSoFar {
  candidates: Candidate[];
  rejected: Record<RejectionReason, number>;
  cost: ModelCost;
}

interface SessionState {
  readonly sessionId: string;
  readonly lastId: string;
  readonly at: string;
  /** A run under way (or stopped by a crash): resumed by the next one. */
  readonly run?: RunSoFar;
}

function statePath(home: string, transcript: Transcript): string {
  const digest = createHash('sha256').update(transcript.sessionId).digest('hex').slice(0, 24);
  return path.join(home, HARVEST_DIR, HARVEST_SESSIONS_DIR, `${transcript.agent}-${digest}.json`);
}

function readState(file: string): SessionState | null {
  return readOwnFileParsed(file, (text) => {
    const state = JSON.parse(text) as Partial<SessionState> | null;
    if (typeof state?.lastId !== 'string') throw new Error('it names no last message harvested');
    const run = state.run as Partial<RunSoFar> | undefined;
    if (run !== undefined && (!Array.isArray(run?.candidates) || typeof run.rejected !== 'object' || typeof run.cost !== 'object' || run.rejected === null || run.cost === null)) {
      throw new Error('its run under way is not one Cairn wrote');
    }
    return state as SessionState;
  });
}


/**
 * Removes the state of sessions not harvested for DECIDED_KEEP_DAYS (their file's mtime): such a
 * session harvested again starts from its beginning, and what was decided about it is still
 * known for as long. Returns how many went.
 */
export function pruneSessionStates(home: string, now: number): number {
  const dir = path.join(home, HARVEST_DIR, HARVEST_SESSIONS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0; // housekeeping: nothing pruned this time, nothing lost (states are read one by one, each reporting)
  }
  const horizon = now - DECIDED_KEEP_DAYS * 24 * 60 * 60 * 1000;
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || st.mtimeMs >= horizon) continue;
    fs.rmSync(file, { force: true });
    removed++;
  }
  return removed;
}

/** Whether a transcript is of a session Cairn's command backend started: its prompt opens it. */
function isOwnRun(transcript: Transcript): boolean {
  return transcript.messages.some((m) => m.role === 'user' && m.text.trimStart().startsWith(HARVEST_PROMPT_MARKER));
}

/** A run's most: calls to a model and characters of prompt (the `harvestBudget` setting). */
export interface HarvestBudget {
  readonly calls: number;
  readonly chars: number;
}

/** A run that stopped at its budget: how many chunks of the session wait for the next run. */
export interface BudgetStop {
  readonly chunksLeft: number;
  readonly budget: HarvestBudget;
}

export async function harvestTranscript(req: HarvestRequest): Promise<HarvestSummary> {
  const idle = (status: HarvestSummary['status'], restarted = false): HarvestSummary => ({ status, segmentMessages: 0, restarted, extractorCalled: false, proposed: [], heldBack: 0, rejected: noRejections(), cost: NO_COST, stopped: null });
  if (isOwnRun(req.transcript)) return idle('own-run');
  const file = statePath(req.home, req.transcript);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Taken synchronously, so of two triggers at once the first called holds it.
  const lease = takeLeaseSync(file);
  if (!lease) return idle('busy');
  try {
    const messages = req.transcript.messages;
    const state = readState(file);
    const at = state ? messages.findIndex((m) => m.id === state.lastId) : -1;
    const restarted = state !== null && at === -1;
    const segment = messages.slice(at + 1);
    // What an unfinished run took before it stopped, and what it had spent.
    const run: RunSoFar = {
      candidates: [...(state?.run?.candidates ?? [])],
      rejected: { ...noRejections(), ...state?.run?.rejected },
      cost: { ...NO_COST, ...state?.run?.cost },
    };
    if (segment.length === 0 && !state?.run) return idle('nothing-new', restarted);
    // Cairn's own prompts and proposing calls are no part of what the session said (transcript.ts).
    const said = segment.filter((m) => !isCairnsOwn(m));
    const byId = new Map(segment.map((m) => [m.id, m]));
    const minConfidence = req.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
    const writeState = (lastId: string, unfinished: RunSoFar | null): void => {
      const next: SessionState = { sessionId: req.transcript.sessionId, lastId, at: new Date().toISOString(), ...(unfinished ? { run: unfinished } : {}) };
      writeOwnFileSync(file, `${JSON.stringify(next)}\n`);
    };
    // Checks candidates and keeps those that pass, each quote with who said it and when; with the
    // id of the last message they cover (a chunk's), the run so far is recorded as done up to it.
    const take = (candidates: readonly Candidate[], lastId: string | null): void => {
      const outcome = checkCandidates(
        candidates,
        said,
        { inbox: req.inbox.pendingTexts(), rejected: req.inbox.rejectedTexts(), approved: req.inbox.approvedTexts(), memoryLines: req.memoryLines, batch: run.candidates.map((c) => c.text) },
        minConfidence,
        false,
        Infinity,
      );
      for (const reason of REJECTION_REASONS) run.rejected[reason] += outcome.rejected[reason];
      run.candidates.push(
        ...outcome.accepted.map((c) => ({
          ...c,
          evidence: c.evidence.map((e) => {
            const m = byId.get(e.messageId);
            return { messageId: e.messageId, quote: e.quote, speaker: m ? speakerOf(m) : ('agent' as const), at: m?.at ?? null };
          }),
        })),
      );
      if (lastId !== null && !req.dryRun) {
        writeState(lastId, run);
        doneUpTo = lastId;
      }
    };
    let chunk = { index: 0, count: 0 };
    let spent = { calls: 0, chars: 0 };
    // Set by the budget's refusal (a closure's write: kept in an object so the type stays wide).
    const stop: { at: BudgetStop | null } = { at: null };
    let doneUpTo: string | null = state?.lastId ?? null;
    let tokensKnown = run.cost.calls === 0 || run.cost.inputTokens !== null;
    if (said.length > 0) {
      const rest = await req.extractor.extract(said, {
        onChunk: (index, count) => {
          chunk = { index, count };
          req.onChunk?.(index, count);
        },
        onDiscarded: (counts) => {
          run.rejected.malformed += counts.malformed;
          run.rejected['over-limit'] += counts.overLimit;
        },
        onCall: (call) => {
          spent = { calls: spent.calls + 1, chars: spent.chars + call.chars };
          tokensKnown &&= call.tokens !== undefined;
          run.cost = {
            calls: run.cost.calls + 1,
            chars: run.cost.chars + call.chars,
            inputTokens: tokensKnown && call.tokens ? (run.cost.inputTokens ?? 0) + call.tokens.input : null,
            outputTokens: tokensKnown && call.tokens ? (run.cost.outputTokens ?? 0) + call.tokens.output : null,
          };
        },
        onChunkDone: ({ candidates, lastId }) => take(candidates, lastId),
        ...(req.budget
          ? {
              mayCall: (chars: number) => {
                const budget = req.budget!;
                if (spent.calls + 1 <= budget.calls && spent.chars + chars <= budget.chars) return true;
                stop.at = { chunksLeft: Math.max(1, chunk.count - chunk.index + 1), budget };
                return false;
              },
            }
          : {}),
      });
      take(rest, null);
    }
    // The run ends: the most confident it took are proposed, the rest held (ties in the order found).
    const waiting = new Set(req.inbox.pendingTexts().map(normalizedText));
    const found = run.candidates.filter((c) => !waiting.has(normalizedText(c.text)));
    const ranked = found.map((c, i) => ({ c, i })).sort((a, b) => b.c.confidence - a.c.confidence || a.i - b.i).map(({ c }) => c);
    const first = ranked.slice(0, MAX_PER_SEGMENT);
    const inOrder = found.filter((c) => first.includes(c));
    const rejected = run.rejected;
    const summary = (proposed: ReadonlyArray<MemoryItem | Candidate>, heldBack: number): HarvestSummary => ({
      status: 'harvested',
      segmentMessages: segment.length,
      restarted,
      extractorCalled: said.length > 0,
      proposed,
      heldBack,
      rejected,
      cost: run.cost,
      stopped: stop.at,
    });
    if (req.dryRun) return summary(inOrder, ranked.length - first.length);
    const source: ItemSource = {
      agent: req.transcript.agent,
      sessionId: req.transcript.sessionId,
      cwd: req.transcript.cwd,
      workspaceId: req.workspaceId,
      projectId: req.projectId,
      extractor: req.extractor.name,
    };
    const proposed = req.inbox.add(inOrder, source);
    const held = req.inbox.hold(ranked.slice(MAX_PER_SEGMENT), source);
    // The inbox takes no more than its cap: what it did not take is counted, and the segment is done
    // (harvesting it again would propose the same once the person has made room; a run does not wait).
    rejected['inbox-full'] += inOrder.length - proposed.length + (ranked.length - first.length - held.length);
    // A run stopped at its budget is done up to its last chunk (recorded as it went); else all of it.
    const last = stop.at === null ? (segment[segment.length - 1]?.id ?? doneUpTo) : doneUpTo;
    if (last !== null) writeState(last, null);
    return summary(proposed, held.length);
  } finally {
    lease.release();
  }
}
