/**
 * The catalogue of other agents' files: which file names, at which places, each agent
 * reads, with the documentation that says so. Discovery (discovery.ts) looks at these places and
 * nowhere else; an id names a file only if it matches an entry here (the envelope: known names at
 * known places only). README.md's "Other agents' files" shows the same table with the same links.
 *
 * Invariants: every place is a fixed list of path segments below a base (the user's home for
 * `global`, the workspace's checkout for `checkout`), optionally followed by one directory level
 * that varies (Claude Code's project folder, `projectFolder`) and a file name pattern; nothing is
 * found by walking the checkout. Nested per-directory files (a `sub/CLAUDE.md`, a `pkg/AGENTS.md`)
 * are not listed: the agents load them only when they work in that directory, and finding them
 * means walking the whole tree.
 */
import type { Agent, AgentFileKind, AgentFilePlace } from '../../common/agent-files/schema';
import { isGitDir, isSafeName } from '../../common/memory/paths';

/** How the file's name is matched in its directory. */
export type NamePattern =
  /** Exactly this name. */
  | { readonly exact: string }
  /** Any safe name ending with `suffix`, in the directory and (with `recursive`) below it. */
  | { readonly suffix: string; readonly recursive: boolean };

export interface CatalogueEntry {
  readonly agent: Agent;
  /** Every agent that reads it, `agent` first. */
  readonly readBy: readonly Agent[];
  readonly kind: AgentFileKind;
  readonly place: AgentFilePlace;
  /** The directory's segments below the base (before a project folder, if any). */
  readonly dir: readonly string[];
  /** Claude Code's auto memory: one folder per project under `dir`, named from the checkout's path, then `below`. */
  readonly projectFolder?: { readonly below: readonly string[] };
  readonly name: NamePattern;
  /** How the documentation writes it. */
  readonly shown: string;
  /** Where the agent's documentation says so. */
  readonly cite: string;
}

const CLAUDE_MEMORY = 'https://code.claude.com/docs/en/memory';
const CODEX_AGENTS_MD = 'https://developers.openai.com/codex/guides/agents-md';
const CODEX_MEMORIES = 'https://developers.openai.com/codex/memories';
const CURSOR_RULES = 'https://cursor.com/docs/rules';
const COPILOT_REPO = 'https://docs.github.com/en/copilot/customizing-copilot/adding-repository-custom-instructions-for-github-copilot';
const COPILOT_CLI = 'https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions';
const GEMINI_MD = 'https://geminicli.com/docs/cli/gemini-md';

const exact = (name: string): NamePattern => ({ exact: name });

/** In the order a group shows them: each agent's global files, then the checkout's. */
export const CATALOGUE: readonly CatalogueEntry[] = [
  // Claude Code
  { agent: 'claude', readBy: ['claude'], kind: 'instructions', place: 'global', dir: ['.claude'], name: exact('CLAUDE.md'), shown: '~/.claude/CLAUDE.md', cite: CLAUDE_MEMORY },
  { agent: 'claude', readBy: ['claude'], kind: 'rules', place: 'global', dir: ['.claude', 'rules'], name: { suffix: '.md', recursive: true }, shown: '~/.claude/rules/**/*.md', cite: CLAUDE_MEMORY },
  {
    agent: 'claude',
    readBy: ['claude'],
    kind: 'memory',
    place: 'global',
    dir: ['.claude', 'projects'],
    projectFolder: { below: ['memory'] },
    name: { suffix: '.md', recursive: false },
    shown: '~/.claude/projects/<project>/memory/*.md (MEMORY.md and topic files)',
    cite: CLAUDE_MEMORY,
  },
  { agent: 'claude', readBy: ['claude'], kind: 'instructions', place: 'checkout', dir: [], name: exact('CLAUDE.md'), shown: 'CLAUDE.md', cite: CLAUDE_MEMORY },
  { agent: 'claude', readBy: ['claude'], kind: 'instructions', place: 'checkout', dir: ['.claude'], name: exact('CLAUDE.md'), shown: '.claude/CLAUDE.md', cite: CLAUDE_MEMORY },
  { agent: 'claude', readBy: ['claude'], kind: 'instructions', place: 'checkout', dir: [], name: exact('CLAUDE.local.md'), shown: 'CLAUDE.local.md', cite: CLAUDE_MEMORY },
  { agent: 'claude', readBy: ['claude'], kind: 'rules', place: 'checkout', dir: ['.claude', 'rules'], name: { suffix: '.md', recursive: true }, shown: '.claude/rules/**/*.md', cite: CLAUDE_MEMORY },
  // Codex
  { agent: 'codex', readBy: ['codex'], kind: 'instructions', place: 'global', dir: ['.codex'], name: exact('AGENTS.override.md'), shown: '~/.codex/AGENTS.override.md', cite: CODEX_AGENTS_MD },
  { agent: 'codex', readBy: ['codex'], kind: 'instructions', place: 'global', dir: ['.codex'], name: exact('AGENTS.md'), shown: '~/.codex/AGENTS.md', cite: CODEX_AGENTS_MD },
  { agent: 'codex', readBy: ['codex'], kind: 'memory', place: 'global', dir: ['.codex', 'memories'], name: { suffix: '.md', recursive: true }, shown: '~/.codex/memories/**/*.md', cite: CODEX_MEMORIES },
  { agent: 'codex', readBy: ['codex'], kind: 'instructions', place: 'checkout', dir: [], name: exact('AGENTS.override.md'), shown: 'AGENTS.override.md', cite: CODEX_AGENTS_MD },
  // Cursor (https://cursor.com/docs/rules) and Copilot in VS Code
  // (https://code.visualstudio.com/docs/agents/reference/custom-instructions-reference) read AGENTS.md too.
  { agent: 'codex', readBy: ['codex', 'cursor', 'copilot'], kind: 'instructions', place: 'checkout', dir: [], name: exact('AGENTS.md'), shown: 'AGENTS.md', cite: CODEX_AGENTS_MD },
  // Cursor
  { agent: 'cursor', readBy: ['cursor'], kind: 'rules', place: 'checkout', dir: ['.cursor', 'rules'], name: { suffix: '.mdc', recursive: true }, shown: '.cursor/rules/**/*.mdc', cite: CURSOR_RULES },
  { agent: 'cursor', readBy: ['cursor'], kind: 'instructions', place: 'checkout', dir: [], name: exact('.cursorrules'), shown: '.cursorrules (legacy)', cite: CURSOR_RULES },
  // GitHub Copilot
  { agent: 'copilot', readBy: ['copilot'], kind: 'instructions', place: 'global', dir: ['.copilot'], name: exact('copilot-instructions.md'), shown: '~/.copilot/copilot-instructions.md (Copilot CLI)', cite: COPILOT_CLI },
  {
    agent: 'copilot',
    readBy: ['copilot'],
    kind: 'instructions',
    place: 'global',
    dir: ['.copilot', 'instructions'],
    name: { suffix: '.instructions.md', recursive: true },
    shown: '~/.copilot/instructions/**/*.instructions.md (Copilot CLI)',
    cite: COPILOT_CLI,
  },
  { agent: 'copilot', readBy: ['copilot'], kind: 'instructions', place: 'checkout', dir: ['.github'], name: exact('copilot-instructions.md'), shown: '.github/copilot-instructions.md', cite: COPILOT_REPO },
  {
    agent: 'copilot',
    readBy: ['copilot'],
    kind: 'instructions',
    place: 'checkout',
    dir: ['.github', 'instructions'],
    name: { suffix: '.instructions.md', recursive: true },
    shown: '.github/instructions/**/*.instructions.md',
    cite: COPILOT_REPO,
  },
  // Gemini CLI
  { agent: 'gemini', readBy: ['gemini'], kind: 'instructions', place: 'global', dir: ['.gemini'], name: exact('GEMINI.md'), shown: '~/.gemini/GEMINI.md', cite: GEMINI_MD },
  { agent: 'gemini', readBy: ['gemini'], kind: 'instructions', place: 'checkout', dir: [], name: exact('GEMINI.md'), shown: 'GEMINI.md', cite: GEMINI_MD },
];

/** How deep a recursive pattern looks below its directory (`.cursor/rules/a/b/c.mdc`: 3). */
export const MAX_PATTERN_DEPTH = 4;
/** The most files one pattern lists (lexicographically first), so a huge rules folder cannot flood the tree. */
export const MAX_FILES_PER_PATTERN = 200;

/** Whether `name` (a file name, not a directory) matches the pattern. */
export function nameMatches(pattern: NamePattern, name: string): boolean {
  if ('exact' in pattern) return name === pattern.exact;
  return name.length > pattern.suffix.length && name.endsWith(pattern.suffix);
}

/**
 * The entry a path (segments below its base) belongs to, if any: its directory is the entry's
 * (with the project folder, and for a recursive pattern up to MAX_PATTERN_DEPTH levels below),
 * and its name matches. `projectFolders`: the folder names this workspace's auto memory may use.
 * The first entry in catalogue order wins (`.cursor/rules/x.md` is a rule, never something else).
 */
export function entryFor(place: AgentFilePlace, segments: readonly string[], projectFolders: readonly string[]): CatalogueEntry | null {
  for (const entry of CATALOGUE) {
    if (entry.place !== place) continue;
    const name = segments[segments.length - 1];
    if (name === undefined || !nameMatches(entry.name, name)) continue;
    let rest = segments.slice(0, -1);
    if (!startsWith(rest, entry.dir)) continue;
    rest = rest.slice(entry.dir.length);
    if (entry.projectFolder) {
      const folder = rest[0];
      if (folder === undefined || !projectFolders.includes(folder)) continue;
      rest = rest.slice(1);
      if (!startsWith(rest, entry.projectFolder.below)) continue;
      rest = rest.slice(entry.projectFolder.below.length);
    }
    const recursive = 'suffix' in entry.name && entry.name.recursive;
    if (rest.length === 0 || (recursive && rest.length < MAX_PATTERN_DEPTH)) return entry;
  }
  return null;
}

/**
 * Whether `segments` (below a base of `place`) name a file the catalogue knows there, for any
 * project folder: what a link of another agent's file must lead to (envelope.ts). Every segment
 * is offered as a project folder, so whichever stands at the folder's place is taken.
 */
export function isCataloguedPath(place: AgentFilePlace, segments: readonly string[]): boolean {
  if (!segments.every((s) => isSafeName(s) && !isGitDir(s))) return false;
  return entryFor(place, segments, segments) !== null;
}

function startsWith(segments: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= segments.length && prefix.every((p, i) => segments[i] === p);
}
