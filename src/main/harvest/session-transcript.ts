/**
 * The transcript of the agent session an MCP session serves, for the `agent` harvest backend
 * (the running agent proposes memories with `memory_propose`, and the host checks its
 * quotes against what was really said). Owns two things:
 * - finding the transcript by the session's working directory: of the agents' session files
 *   (session-files.ts; Codex's only the last few days' folders), the most recently written one
 *   whose own cwd (its messages', its meta line's) is the session's;
 * - where a quote is in it: the message it was copied from, so the checks see the real message,
 *   who said it and when.
 *
 * Invariant: nothing here writes, and nothing read is followed; file contents are data.
 */
import { squash } from './checks';
import { readTranscriptFile } from './read-transcript';
import { claudeSessionFiles, codexSessionFiles, comparablePath, fileCwd, geminiSessionFiles, transcriptRoots, type TranscriptRoots } from './session-files';
import { isCairnsOwn, type Transcript, type TranscriptAgent, type TranscriptMessage } from './transcript';

/** How many days of Codex's day folders are looked at, today's included. */
const CODEX_RECENT_DAYS = 3;
/** The most files whose cwd is read before giving up (newest first): bounds the cost in a busy folder. */
const MAX_FILES_TRIED = 40;

export interface FindSessionOptions {
  readonly roots?: TranscriptRoots;
  /** The agents to look for (the MCP client may say which it is); default Claude Code, Codex and Gemini CLI. */
  readonly agents?: readonly TranscriptAgent[];
  /** The clock that says which Codex day folders are recent. */
  readonly now?: () => number;
}

/**
 * The transcript of the newest session that ran in `cwd`, or null when there is none. Files are
 * tried newest first (by modification time: the running session is the one being written).
 */
export async function findSessionTranscript(cwd: string, options: FindSessionOptions = {}): Promise<Transcript | null> {
  const roots = options.roots ?? transcriptRoots();
  const agents = options.agents ?? ['claude', 'codex', 'gemini'];
  const wanted = await comparablePath(cwd);
  const files = [
    ...(agents.includes('claude') ? claudeSessionFiles(roots.claudeConfigDir, [cwd, wanted]) : []),
    ...(agents.includes('codex') ? codexSessionFiles(roots.codexHome, options.now?.() ?? Date.now(), CODEX_RECENT_DAYS) : []),
    ...(agents.includes('gemini') && roots.geminiDir ? geminiSessionFiles(roots.geminiDir, [cwd, wanted]) : []),
  ].sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? 1 : a.file > b.file ? -1 : 0));
  for (const candidate of files.slice(0, MAX_FILES_TRIED)) {
    const own = await fileCwd(candidate);
    if (own === null || (await comparablePath(own)) !== wanted) continue;
    try {
      return await readTranscriptFile(candidate.file);
    } catch {
      // Removed or unreadable since it was listed: the next one.
    }
  }
  return null;
}

// ---- where a quote is ----

export interface QuoteSources {
  /** Text that marks a message as the harvest prompt itself (its words are Cairn's, not the session's). */
  readonly promptMarker?: string;
}

/**
 * The message `quote` was copied from (whitespace normalised, as the checks compare), or null.
 * Of several, the person's own words first (the grounds a preference or a convention needs), then
 * words over tool traffic, then the latest. Never the proposing tool's own call, nor the harvest
 * prompt: both contain the quotes or the instructions, not the session.
 */
export function messageOfQuote(transcript: Transcript, quote: string, sources: QuoteSources = {}): TranscriptMessage | null {
  const wanted = squash(quote);
  if (wanted === '') return null;
  let best: TranscriptMessage | null = null;
  const rank = (m: TranscriptMessage): number => (m.fromPerson ? 2 : m.kind === 'text' || m.kind === 'summary' ? 1 : 0);
  for (const message of transcript.messages) {
    // The proposing tools' own calls hold the quotes, Cairn's prompts its instructions: evidence of nothing.
    if (isCairnsOwn(message)) continue;
    if (sources.promptMarker && message.text.includes(sources.promptMarker)) continue;
    if (!squash(message.text).includes(wanted)) continue;
    if (best === null || rank(message) >= rank(best)) best = message;
  }
  return best;
}
