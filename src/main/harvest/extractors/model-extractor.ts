/**
 * What the model backends (command, http) share: a segment's messages redacted, split into chunks,
 * each chunk's prompt sent to the model once, and each answer read into candidates, handed to the
 * run chunk by chunk (onChunkDone) or, for a caller that does not take them so, returned together
 * in chunk order. A backend only says how a prompt reaches its model and how the answer comes back
 * (Ask).
 *
 * Invariants: nothing reaches a backend but harvestPrompt's text of redacted messages; chunks go
 * one at a time, in order, and onChunk is told before each (1-based: chunk 2 of 4); no prompt is
 * sent that the run's mayCall refuses (the extraction ends there); one failing chunk fails the
 * extraction, the chunks handed over before it staying done; and an answer cut short by the
 * model's output limit says so when it cannot be read.
 */
import type { Candidate } from '../../inbox/candidate';
import type { ExtractOptions, Extractor } from '../harvest-run';
import type { TranscriptMessage } from '../transcript';
import { parseAnswer } from './answer';
import { AnswerError } from './json-answer';
import { chunkSegment, DEFAULT_CHUNK_CHARS } from './chunk';
import { harvestPrompt } from './prompt';
import { redactMessages } from './redact';

/** Starts a timer that calls fire after ms; the function returned cancels it. */
export type StartTimer = (ms: number, fire: () => void) => () => void;

/** The real clock. Tests inject their own, and fire it when they choose. */
export const realTimer: StartTimer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  return () => clearTimeout(handle);
};

/** "10 minutes", "30 seconds", "250 ms": a timeout as a person reads it. */
export function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} second${ms === 1000 ? '' : 's'}`;
  return `${ms} ms`;
}

/** A model's answer to one prompt. */
export interface ModelAnswer {
  readonly text: string;
  /** The model stopped at its output limit (Anthropic stop_reason max_tokens, OpenAI finish_reason length). */
  readonly cutShort?: boolean;
  /** The tokens the API says the call used, when it says. */
  readonly tokens?: { readonly input: number; readonly output: number };
}

/**
 * Sends one prompt to a backend's model: the one runner of the model backends, shared by the
 * harvest (modelExtractor below) and the consolidation (consolidation/model-consolidation.ts). `signal` is a person's
 * Cancel: the command's process group is stopped, the HTTP request aborted.
 */
export type Ask = (prompt: string, signal?: AbortSignal) => Promise<ModelAnswer>;

/** The error a cancelled ask rejects with. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
}

export interface ModelExtractorOptions {
  /** Characters of rendered messages per chunk (chunk.ts). */
  readonly chunkChars?: number;
  /** Told after each chunk's answer: how many items were not valid candidates, and how many were past the cap. */
  readonly onAnswer?: (report: { readonly chunk: number; readonly candidates: number; readonly dropped: number; readonly ignored: number }) => void;
}

/** An Extractor that asks a model through `ask`, chunk by chunk (see the header). */
export function modelExtractor(name: string, ask: Ask, options: ModelExtractorOptions = {}): Extractor {
  return {
    name,
    async extract(segment: readonly TranscriptMessage[], run?: ExtractOptions): Promise<Candidate[]> {
      const chunks = chunkSegment(redactMessages(segment), options.chunkChars ?? DEFAULT_CHUNK_CHARS);
      const out: Candidate[] = [];
      for (const [i, chunk] of chunks.entries()) {
        run?.onChunk?.(i + 1, chunks.length);
        let parsed;
        try {
          const prompt = harvestPrompt(chunk);
          if (run?.mayCall && !run.mayCall(prompt.length)) return out;
          const answer = await ask(prompt);
          run?.onCall?.({ chars: prompt.length, ...(answer.tokens ? { tokens: answer.tokens } : {}) });
          try {
            parsed = parseAnswer(answer.text);
          } catch (err) {
            if (err instanceof AnswerError && answer.cutShort) throw new AnswerError(`${err.message} (the model stopped at its output limit: its answer was cut short)`);
            throw err;
          }
        } catch (err) {
          // Which part of a long session failed, for the status line.
          if (chunks.length > 1 && err instanceof Error) err.message = `Chunk ${i + 1} of ${chunks.length}: ${err.message}`;
          throw err;
        }
        options.onAnswer?.({ chunk: i + 1, candidates: parsed.candidates.length, dropped: parsed.dropped, ignored: parsed.ignored });
        if (parsed.dropped + parsed.ignored > 0) run?.onDiscarded?.({ malformed: parsed.dropped, overLimit: parsed.ignored });
        if (run?.onChunkDone) run.onChunkDone({ candidates: parsed.candidates, lastId: chunk[chunk.length - 1]!.id });
        else out.push(...parsed.candidates);
      }
      return out;
    },
  };
}
