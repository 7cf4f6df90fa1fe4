/**
 * Reads a transcript file of either agent (issue 19), telling the formats apart by their lines: a
 * Codex rollout's lines carry a `payload` (or, in its oldest format, start with the session's meta),
 * a Claude Code transcript's a `uuid` or a `sessionId`. Unknown lines are the readers' to count.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readClaudeTranscriptFile } from './claude-transcript';
import { readCodexRolloutFile } from './codex-rollout';
import type { Transcript, TranscriptAgent } from './transcript';

/** Which agent wrote `text` (a file's name helps: Codex names its rollouts `rollout-*.jsonl`). */
export function transcriptAgent(text: string, fileName = ''): TranscriptAgent {
  if (/^rollout-.*\.jsonl$/.test(path.basename(fileName))) return 'codex';
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
    if ('uuid' in value || 'sessionId' in value || 'parentUuid' in value) return 'claude';
  }
  return 'claude';
}

/** Reads a transcript file of either agent; its name stands in for a session id the lines lack. */
export async function readTranscriptFile(file: string): Promise<Transcript> {
  const head = Buffer.alloc(64 * 1024);
  const fd = await fs.promises.open(file, 'r');
  let text: string;
  try {
    const { bytesRead } = await fd.read(head, 0, head.length, 0);
    text = head.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fd.close();
  }
  return transcriptAgent(text, file) === 'codex' ? readCodexRolloutFile(file) : readClaudeTranscriptFile(file);
}
