/**
 * Who made an agent's change: the agent (as its MCP client names itself in `initialize`'s
 * clientInfo, or as a hook's or `cairn tool`'s `--agent` flag says) and its session. Pure, shared
 * by the history's records (main) and the Activity view (renderer).
 *
 * Invariant: a name is kept as the agent gave it; only the words a person reads are derived
 * (agentLabel), so a client Cairn does not know is shown by its own name, never guessed at.
 */
/** The longest agent name and session id kept (a client's name is free text of its own). */
export const MAX_AGENT_NAME = 100;
export const MAX_AGENT_SESSION = 200;

/**
 * An agent and its session ('' when not known). A plain type, not a schema: the hooks read this
 * module on every prompt, and zod would cost them more to load than most of their work (the API's
 * schema is in contract/activity.ts).
 */
export interface AgentRef {
  name: string;
  session: string;
}

/**
 * The names the real clients give (recorded from the CLIs the agents suite drives): Claude Code's
 * MCP client says `claude-code`, Codex's `codex-mcp-client`, Gemini CLI's `gemini-cli-mcp-client`;
 * the hooks' `--agent` flag takes the harvest's agent ids (`claude`, `codex`, `gemini`, `copilot`).
 */
const LABELS: Readonly<Record<string, string>> = {
  'claude-code': 'Claude Code',
  claude: 'Claude Code',
  'codex-mcp-client': 'Codex',
  codex: 'Codex',
  'gemini-cli-mcp-client': 'Gemini CLI',
  gemini: 'Gemini CLI',
  copilot: 'Copilot CLI',
};

/** The agent's name in words: "Claude Code", "Codex", "Gemini CLI", "Copilot CLI", else its own name. */
export function agentLabel(name: string): string {
  return LABELS[name] ?? name;
}

/** Whether `value` is a name and session fit to keep (their lengths; no control characters). */
export function isAgentRef(value: unknown): value is AgentRef {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { name, session } = value as Record<string, unknown>;
  const fits = (s: unknown, max: number, min: number) => typeof s === 'string' && s.length >= min && s.length <= max && !/[\u0000-\u001f\u007f]/.test(s);
  return Object.keys(value).length === 2 && fits(name, MAX_AGENT_NAME, 1) && fits(session, MAX_AGENT_SESSION, 0);
}

/**
 * A name and session fit to keep, made from what a client or a flag said: control characters
 * removed, each cut to its longest; undefined when no name is left.
 */
export function agentRefOf(name: unknown, session: unknown): AgentRef | undefined {
  const clean = (s: unknown, max: number) => (typeof s === 'string' ? s.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, max) : '');
  const n = clean(name, MAX_AGENT_NAME);
  return n === '' ? undefined : { name: n, session: clean(session, MAX_AGENT_SESSION) };
}
