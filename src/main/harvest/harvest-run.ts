/**
 * One harvest of one transcript (issue 19): the segment not harvested yet, an extractor's
 * candidates for it, the host's checks, and the inbox.
 *
 * Segments are keyed by message ids: `<home>/harvest/sessions/<agent>-<digest of the session
 * id>.json` holds the id of the last message harvested. The next harvest takes the messages after
 * it; when that id is no longer in the transcript (shortened or rewritten), it starts over and the
 * checks' dedupe absorbs what was proposed before. A harvest holds a lock on its session's state
 * (two triggers at once: the second answers 'busy' and calls no extractor), and a segment with no
 * new message calls no extractor either. The state is written whole (runtime/local/atomic-write.ts);
 * one that does not parse is set aside as `<name>.damaged-<time>` and reported, and the session is
 * harvested from its start (the checks' dedupe absorbs what was proposed before).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import lockfile from 'proper-lockfile';
import { readOwnFileParsed, writeOwnFileSync } from '../runtime/local/atomic-write';
import type { Candidate } from './candidate';
import { HARVEST_PROMPT_MARKER } from './extractors/prompt';
import { HARVEST_DIR, HARVEST_SESSIONS_DIR } from './harvest-jobs';
import { checkCandidates, DEFAULT_MIN_CONFIDENCE, noRejections, type RejectionReason } from './checks';
import { DECIDED_KEEP_DAYS, type InboxStore, type ItemSource, type MemoryItem } from './inbox-store';
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
  readonly rejected: Readonly<Record<RejectionReason, number>>;
  /** What the run sent to a model (none: zero calls). */
  readonly cost: ModelCost;
}

/** No model asked. */
export const NO_COST: ModelCost = { calls: 0, chars: 0, inputTokens: null, outputTokens: null };

interface SessionState {
  readonly sessionId: string;
  readonly lastId: string;
  readonly at: string;
}

function statePath(home: string, transcript: Transcript): string {
  const digest = createHash('sha256').update(transcript.sessionId).digest('hex').slice(0, 24);
  return path.join(home, HARVEST_DIR, HARVEST_SESSIONS_DIR, `${transcript.agent}-${digest}.json`);
}

function readState(file: string): SessionState | null {
  return readOwnFileParsed(file, (text) => {
    const state = JSON.parse(text) as Partial<SessionState> | null;
    if (typeof state?.lastId !== 'string') throw new Error('it names no last message harvested');
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
    return 0;
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
export function isOwnRun(transcript: Transcript): boolean {
  return transcript.messages.some((m) => m.role === 'user' && m.text.trimStart().startsWith(HARVEST_PROMPT_MARKER));
}

export async function harvestTranscript(req: HarvestRequest): Promise<HarvestSummary> {
  if (isOwnRun(req.transcript)) return { status: 'own-run', segmentMessages: 0, restarted: false, extractorCalled: false, proposed: [], rejected: noRejections(), cost: NO_COST };
  const file = statePath(req.home, req.transcript);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let release: () => void;
  try {
    release = lockfile.lockSync(file, { realpath: false, stale: 60_000 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    return { status: 'busy', segmentMessages: 0, restarted: false, extractorCalled: false, proposed: [], rejected: noRejections(), cost: NO_COST };
  }
  try {
    const messages = req.transcript.messages;
    const state = readState(file);
    const at = state ? messages.findIndex((m) => m.id === state.lastId) : -1;
    const restarted = state !== null && at === -1;
    const segment = messages.slice(at + 1);
    if (segment.length === 0) return { status: 'nothing-new', segmentMessages: 0, restarted, extractorCalled: false, proposed: [], rejected: noRejections(), cost: NO_COST };
    const discarded = { malformed: 0, overLimit: 0 };
    let calls = 0;
    let chars = 0;
    // Tokens are summed while every call's API reported them; one that did not leaves them unknown.
    let tokens: { input: number; output: number } | null = { input: 0, output: 0 };
    // Cairn's own prompts and proposing calls are no part of what the session said (transcript.ts).
    const said = segment.filter((m) => !isCairnsOwn(m));
    const candidates = said.length === 0 ? [] : await req.extractor.extract(said, {
      ...(req.onChunk ? { onChunk: req.onChunk } : {}),
      onDiscarded: (counts) => {
        discarded.malformed += counts.malformed;
        discarded.overLimit += counts.overLimit;
      },
      onCall: (call) => {
        calls++;
        chars += call.chars;
        tokens = tokens && call.tokens ? { input: tokens.input + call.tokens.input, output: tokens.output + call.tokens.output } : null;
      },
    });
    const used = tokens as { input: number; output: number } | null;
    const cost: ModelCost = { calls, chars, inputTokens: calls > 0 && used ? used.input : null, outputTokens: calls > 0 && used ? used.output : null };
    const outcome = checkCandidates(
      candidates,
      said,
      { inbox: req.inbox.pendingTexts(), rejected: req.inbox.rejectedTexts(), approved: req.inbox.approvedTexts(), memoryLines: req.memoryLines },
      req.minConfidence ?? DEFAULT_MIN_CONFIDENCE,
    );
    outcome.rejected.malformed += discarded.malformed;
    outcome.rejected['over-limit'] += discarded.overLimit;
    if (req.dryRun) return { status: 'harvested', segmentMessages: segment.length, restarted, extractorCalled: said.length > 0, proposed: outcome.accepted, rejected: outcome.rejected, cost };
    const source: ItemSource = {
      agent: req.transcript.agent,
      sessionId: req.transcript.sessionId,
      cwd: req.transcript.cwd,
      workspaceId: req.workspaceId,
      projectId: req.projectId,
      extractor: req.extractor.name,
    };
    // Each quote with who said it and when, from the transcript itself.
    const byId = new Map(segment.map((m) => [m.id, m]));
    const grounded = outcome.accepted.map((c) => ({
      ...c,
      evidence: c.evidence.map((e) => {
        const m = byId.get(e.messageId);
        return { messageId: e.messageId, quote: e.quote, speaker: m ? speakerOf(m) : ('agent' as const), at: m?.at ?? null };
      }),
    }));
    const proposed = req.inbox.add(grounded, source);
    // The inbox takes no more than its cap: what it did not take is counted, and the segment is done
    // (harvesting it again would propose the same once the person has made room; a run does not wait).
    outcome.rejected['inbox-full'] += grounded.length - proposed.length;
    const next: SessionState = { sessionId: req.transcript.sessionId, lastId: segment[segment.length - 1]!.id, at: new Date().toISOString() };
    writeOwnFileSync(file, `${JSON.stringify(next)}\n`);
    return { status: 'harvested', segmentMessages: segment.length, restarted, extractorCalled: said.length > 0, proposed, rejected: outcome.rejected, cost };
  } finally {
    release();
  }
}
