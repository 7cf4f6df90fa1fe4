/**
 * Reads a transcript file of either agent, telling the formats apart by their lines: a
 * Codex rollout's lines carry a `payload` (or, in its oldest format, start with the session's meta),
 * a Claude Code transcript's a `uuid` or a `sessionId`. Unknown lines are the readers' to count.
 * The file is read once, by the rule of files from outside (openTranscript).
 */
import { CairnError } from '../../common/errors';
import * as path from 'node:path';
import { readRest } from '../outside/outside-file';
import { readClaudeTranscript } from './claude-transcript';
import { readCodexRolloutData } from './codex-rollout';
import { isGeminiSessionFile, readGeminiSessionData } from './gemini-session';
import { isCopilotSessionFile, readCopilotSessionData } from './copilot-session';
import { MAX_TRANSCRIPT_BYTES, openTranscript } from './session-files';
import type { Transcript, TranscriptAgent } from './transcript';

/** Which agent wrote `text` (a file's name helps: Codex names its rollouts `rollout-*.jsonl`). */
export function transcriptAgent(text: string, fileName = ''): TranscriptAgent {
  if (/^rollout-.*\.jsonl$/.test(path.basename(fileName))) return 'codex';
  if (isGeminiSessionFile(fileName)) return 'gemini';
  if (isCopilotSessionFile(fileName)) return 'copilot';
  let looked = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (++looked > 50) break;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    // Codex: the envelope's payload; before it, a bare session meta, state markers, response items.
    if ('payload' in value || 'record_type' in value || ('instructions' in value && 'id' in value) || ('type' in value && 'role' in value && 'content' in value)) return 'codex';
    // Gemini CLI: its session's metadata (a projectHash beside the sessionId), and its replay records.
    if ('projectHash' in value || '$set' in value || '$rewindTo' in value) return 'gemini';
    if ('uuid' in value || 'sessionId' in value || 'parentUuid' in value) return 'claude';
    // Copilot CLI: an event, {type: "session.start" / "user.message" / ..., data, id, parentId}.
    if ('data' in value && 'parentId' in value && 'type' in value) return 'copilot';
  }
  return 'claude';
}

/** A transcript that is not read, and why, for a person (no host path: the caller names the file). */
export class TranscriptRefused extends CairnError {
  constructor(
    readonly reason: string,
    /** Where the name leads when it is a link (a host path: shown to the person who named the file only). */
    readonly linkTo: string | null,
  ) {
    super(`the transcript cannot be read: ${reason}`);
  }
}

/**
 * Reads a transcript file of either agent by the rule of files from outside (session-files.ts
 * openTranscript: a regular file, a link only to a transcript in the home or the agents' folders);
 * its name stands in for a session id the lines lack. Throws TranscriptRefused when it is not
 * read, and ENOENT when nothing is there.
 */
export async function readTranscriptFile(file: string): Promise<Transcript> {
  const opened = await openTranscript(file);
  if (opened === null) throw Object.assign(new Error('no such transcript'), { code: 'ENOENT' });
  if ('refused' in opened) throw new TranscriptRefused(opened.refused, opened.linkTo);
  let read;
  try {
    read = await readRest(opened, MAX_TRANSCRIPT_BYTES);
  } finally {
    await opened.handle.close();
  }
  if ('refused' in read) throw new TranscriptRefused(read.refused, opened.linkTo);
  const data = read.bytes;
  const agent = transcriptAgent(data.subarray(0, 64 * 1024).toString('utf8'), file);
  if (agent === 'codex') return readCodexRolloutData(data, file);
  if (agent === 'gemini') return readGeminiSessionData(data, file);
  if (agent === 'copilot') return readCopilotSessionData(data, file);
  return readClaudeTranscript(data, { sessionId: path.basename(file, '.jsonl') });
}
