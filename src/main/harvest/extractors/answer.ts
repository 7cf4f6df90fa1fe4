/**
 * A model's answer to the harvest prompt, read into candidates. Models and the tools
 * around them wrap the JSON the prompt asks for in many ways; what is read:
 * - the text itself, or prose around it, or a ``` / ```json fence around it;
 * - Claude Code's `claude -p --output-format json` envelope ({"type":"result","result":"<text>"}),
 *   the array `--verbose` prints, and `--output-format stream-json` lines (the last result line);
 * - Codex's `codex exec` (its last message, plain text) and `codex exec --json` event lines (the last
 *   agent_message item).
 * The answer object is {"candidates":[...]}; a bare array of candidates is taken too.
 *
 * Invariants: each candidate is validated on its own (candidate.ts's shape: category, scope, text
 * of at most 1000 characters, evidence, confidence 0..1); an invalid one is dropped and counted,
 * never fatal; at most MAX_ANSWER_CANDIDATES are considered, the rest counted as ignored. An
 * answer with no JSON answer object at all, or one the tool reports as failed, is an AnswerError.
 * The host's checks (checks.ts) still judge every candidate returned here.
 */
import { z } from 'zod';
import { SCOPES } from '../../../common/memory/constants';
import { CANDIDATE_CATEGORIES, type Candidate } from '../../inbox/candidate';
import { answerList } from './json-answer';

/** The most candidates read from one answer (the prompt asks for at most 10). */
export const MAX_ANSWER_CANDIDATES = 50;
/** The longest memory text accepted. */
const MAX_CANDIDATE_TEXT = 1000;

export interface ParsedAnswer {
  readonly candidates: Candidate[];
  /** Items that were not a valid candidate (a missing field, an unknown category, ...). */
  readonly dropped: number;
  /** Items past MAX_ANSWER_CANDIDATES, not looked at. */
  readonly ignored: number;
}

const evidenceSchema = z.object({
  messageId: z.string().min(1).max(200),
  quote: z.string().min(1).max(2000),
});

/** One candidate as a model gives it; unknown fields (and any speaker or time it claims) are dropped. */
const answerCandidateSchema = z.object({
  category: z.enum(CANDIDATE_CATEGORIES),
  text: z.string().trim().min(1).max(MAX_CANDIDATE_TEXT),
  scope: z.enum(SCOPES),
  evidence: z.array(evidenceSchema).min(1).max(20),
  confidence: z.number().min(0).max(1),
  rationale: z.string().trim().max(2000).default(''),
});

/** A model's answer (or a tool's output around it) read into valid candidates; see the header. */
export function parseAnswer(output: string): ParsedAnswer {
  const list = answerList(output, 'candidates');
  const candidates: Candidate[] = [];
  let dropped = 0;
  for (const item of list.slice(0, MAX_ANSWER_CANDIDATES)) {
    const parsed = answerCandidateSchema.safeParse(item);
    if (parsed.success) candidates.push(parsed.data);
    else dropped++;
  }
  return { candidates, dropped, ignored: Math.max(0, list.length - MAX_ANSWER_CANDIDATES) };
}
