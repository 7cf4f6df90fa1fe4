/**
 * How other agents' files read to a person: the groups (one per agent whose files
 * exist, in the agents' order; global files first, then the checkout's), "read by Codex, Cursor",
 * sizes, the words for an adopt's result, and the open file's key in the memory pane. Pure, so the
 * wording is tested without a DOM.
 *
 * Invariant: an agent file's id is a display path (`~/...` or relative to the checkout) and never
 * starts with `/memories/`; the pane tells the two kinds of open file apart by the key's prefix.
 */
import { AGENT_NAMES, AGENTS, type AdoptResult, type Agent, type AgentFile } from '../../../common/agent-files/schema';

/** The memory pane's open "path" for an agent file (memory files are `/memories/...`). */
const OPEN_PREFIX = 'agent-file:';

export function agentOpenKey(id: string): string {
  return `${OPEN_PREFIX}${id}`;
}

/** The agent file's id when `key` names one, else null (a memory path). */
export function agentIdOf(key: string | null): string | null {
  return key?.startsWith(OPEN_PREFIX) ? key.slice(OPEN_PREFIX.length) : null;
}

/** What a person calls the open thing: a memory path as it is, an agent file by its display path. */
export function openKeyText(key: string): string {
  return agentIdOf(key) ?? key;
}

interface AgentGroup {
  readonly agent: Agent;
  readonly name: string;
  /** Its files: global ones first, then the checkout's. */
  readonly files: readonly AgentFile[];
}

/**
 * One group per agent that has files, in the agents' order (Claude Code, Codex, Cursor, GitHub
 * Copilot, Gemini CLI); within a group global files first, each place in the server's order (the
 * catalogue's: an agent's main file before its rules and its own memory).
 */
export function groupByAgent(files: readonly AgentFile[]): AgentGroup[] {
  const order = (f: AgentFile) => (f.place === 'global' ? 0 : 1);
  return AGENTS.flatMap((agent) => {
    const mine = files.filter((f) => f.agent === agent).sort((a, b) => order(a) - order(b));
    return mine.length > 0 ? [{ agent, name: AGENT_NAMES[agent], files: mine }] : [];
  });
}

/** "Codex, Cursor and Gemini CLI". */
function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}

/** "read by Claude Code", "read by Codex, Cursor and Gemini CLI". */
export function readByText(readBy: readonly Agent[]): string {
  return readBy.length === 0 ? 'read by no agent' : `read by ${listWords(readBy.map((a) => AGENT_NAMES[a]))}`;
}

/** "812 B", "3.4 KB", "1.2 MB". */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** "global (your home)" or "this checkout". */
export function placeText(file: Pick<AgentFile, 'place'>): string {
  return file.place === 'global' ? 'global, in your home' : 'in this checkout';
}

/**
 * A display path made short where it is long for no use: Claude Code's project folder (the whole
 * checkout path, encoded) becomes "…" (`~/.claude/projects/…/memory/MEMORY.md`).
 */
export function shortPath(p: string): string {
  const m = /^(~\/\.claude\/projects\/)[^/]+(\/.+)$/.exec(p);
  return m ? `${m[1]!}…${m[2]!}` : p;
}

const DUPLICATE_WORDS: Record<Extract<AdoptResult, { status: 'ok' }>['duplicates'][number]['reason'], string> = {
  'already-in-memory': 'already in memory',
  'already-in-inbox': 'already in the Inbox',
  'rejected-before': 'rejected before',
  'duplicate-in-batch': 'repeated in what you adopted',
};

/**
 * An adopt's result in words: "3 proposed to the Inbox, 2 already in memory, 1 refused: a secret
 * on line 12." (nothing proposed: "Nothing proposed to the Inbox, ...").
 */
export function adoptResultText(result: AdoptResult): string {
  if (result.status === 'error') return result.message;
  const parts: string[] = [result.added.length === 0 ? 'Nothing proposed to the Inbox' : `${result.added.length} proposed to the Inbox`];
  const counts = new Map<string, number>();
  for (const d of result.duplicates) counts.set(DUPLICATE_WORDS[d.reason], (counts.get(DUPLICATE_WORDS[d.reason]) ?? 0) + 1);
  for (const [words, n] of counts) parts.push(`${n} ${words}`);
  if (result.refused.length > 0) {
    const why = result.refused.map((r) => `${r.reason} on line ${r.line}`).join('; ');
    parts.push(`${result.refused.length} refused: ${why}`);
  }
  return `${parts.join(', ')}.`;
}

/** Ranges as a person reads them: "line 3", "lines 3–5, 9". */
export function rangesText(ranges: readonly (readonly [number, number])[]): string {
  const one = ranges.length === 1 && ranges[0]![0] === ranges[0]![1];
  const words = ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
  return `${one ? 'line' : 'lines'} ${words}`;
}

/** Overlapping or touching ranges merged, in order. */
export function mergeRanges(ranges: readonly (readonly [number, number])[]): Array<[number, number]> {
  const sorted = ranges.map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a])).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/** Whether a file matches the path filter (every word in its path or its agents' names). */
export function matchesFilter(file: AgentFile, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = `${file.path} ${file.readBy.map((a) => AGENT_NAMES[a]).join(' ')}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}
