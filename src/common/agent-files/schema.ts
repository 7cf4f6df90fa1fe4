/**
 * Other agents' files: the vocabulary and the wire shapes of what Cairn shows of the
 * instruction and memory files Claude Code, Codex, Cursor, Copilot and Gemini CLI read. Pure and
 * isomorphic (the renderer, the router and the CLI import it).
 *
 * Invariant: nothing here carries a host path, but for a link's target outside its place
 * (`linkTo`). A file is named by its display path, which is also its id: `~/<path below the
 * home>` for a file of the user's home (global), `<path below the checkout>` for a file of the
 * workspace's checkout. The server resolves an id only by discovering
 * the known files again, so an id can never name anything else.
 */
import { z } from 'zod';
import { ACTORS, SCOPES } from '../memory/constants';

export const AGENTS = ['claude', 'codex', 'cursor', 'copilot', 'gemini'] as const;
export type Agent = (typeof AGENTS)[number];

/** How each agent is called in the UI and the CLI. */
export const AGENT_NAMES: Readonly<Record<Agent, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  cursor: 'Cursor',
  copilot: 'GitHub Copilot',
  gemini: 'Gemini CLI',
};

/**
 * What a file is to its agent: `instructions` a person writes for it (CLAUDE.md, AGENTS.md,
 * GEMINI.md, copilot-instructions.md, .cursorrules), `rules` Cursor's project rules (.mdc), `memory`
 * what the agent keeps itself (Claude Code's auto memory, Codex's memories).
 */
const AGENT_FILE_KINDS = ['instructions', 'rules', 'memory'] as const;
export type AgentFileKind = (typeof AGENT_FILE_KINDS)[number];

/** `global`: under the user's home, read in every project; `checkout`: in the workspace's checkout. */
const AGENT_FILE_PLACES = ['global', 'checkout'] as const;
export type AgentFilePlace = (typeof AGENT_FILE_PLACES)[number];

/** A display path: `~/...` (global) or relative to the checkout; also the file's id. */
export const agentFileIdSchema = z.string().min(1).max(1024);

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** One file an agent reads, as the listing shows it. */
export const agentFileSchema = z.object({
  /** The display path, which is the id read, write, adopt and compare take. */
  id: agentFileIdSchema,
  /** The agent whose group shows it (the one whose documentation defines the file). */
  agent: z.enum(AGENTS),
  /** Every agent that reads it (AGENTS.md is read by several), `agent` first. */
  readBy: z.array(z.enum(AGENTS)),
  kind: z.enum(AGENT_FILE_KINDS),
  place: z.enum(AGENT_FILE_PLACES),
  /** Same as id; what a person sees. */
  path: z.string(),
  /** Bytes on disk. */
  size: z.number().int().nonnegative(),
  /** Last change, ISO 8601. */
  mtime: z.string(),
  /** Digest of the bytes; null when unreadable. */
  sha256: sha256.nullable(),
  /** Null when it can be opened; else why not, for a person (too large, not UTF-8, not a regular file, ...). */
  unreadable: z.string().nullable(),
  /**
   * Where the file leads when its name (or a folder on its way) is a symbolic link: its display
   * path when it stays in the same place (`~/...`, or below the checkout), else the path itself, so
   * a person sees where a link points (the one host path here; shown to that person only). Null: no link.
   */
  linkTo: z.string().nullable(),
});
export type AgentFile = z.infer<typeof agentFileSchema>;

/** One search hit: the file, the 1-based line, its text, and the matching words' [start, end) in it. */
export const agentFileHitSchema = z.object({
  id: agentFileIdSchema,
  agent: z.enum(AGENTS),
  line: z.number().int().positive(),
  text: z.string(),
  matches: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type AgentFileHit = z.infer<typeof agentFileHitSchema>;

/** Inclusive 1-based line ranges a person selected. */
export const lineRangesSchema = z.array(z.tuple([z.number().int().positive(), z.number().int().positive()])).min(1).max(200);

/** Why an entry was not proposed as a repeat (the harvest's check reasons, harvest/checks.ts). */
const ADOPT_DUPLICATE_REASONS = ['already-in-memory', 'already-in-inbox', 'rejected-before', 'duplicate-in-batch'] as const;

/** What an adopt did: inbox items added, and the entries left out with the reason. */
export const adoptResultSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('ok'),
    /** Ids of the inbox items created (pending, kind memory). */
    added: z.array(z.string()),
    /** Entries not proposed because they repeat something: a memory line, a pending or recently rejected proposal, or another entry of this adopt. */
    duplicates: z.array(z.object({ text: z.string(), reason: z.enum(ADOPT_DUPLICATE_REASONS) })),
    /** Entries the content scanners flagged (never proposed): the line the entry starts at and why (never the text: it may hold a secret). */
    refused: z.array(z.object({ line: z.number().int().positive(), reason: z.string() })),
    message: z.string(),
  }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);
export type AdoptResult = z.infer<typeof adoptResultSchema>;

/** How many files one comparison takes: at least two, at most six (the API's bound and the picker's). */
export const COMPARE_MIN = 2;
export const COMPARE_MAX = 6;

/**
 * A side of a comparison: an agent file's id, or a Cairn memory file's virtual path
 * (`/memories/<scope>/...`).
 */
const compareSideSchema = z.object({ id: z.string(), label: z.string() });

/** One line of one side: 1-based number and text. */
const compareCellSchema = z.object({ line: z.number().int().positive(), text: z.string() });

/**
 * One row of a comparison, a cell per side (null: that side does not state it). `differs`: two or
 * more sides state it in different words; `only`: one side states it; `missing`: the sides that state
 * it agree, but some side does not. Rows every side states identically are not listed.
 */
const compareRowSchema = z.object({
  kind: z.enum(['differs', 'only', 'missing']),
  cells: z.array(compareCellSchema.nullable()),
});
export type CompareRow = z.infer<typeof compareRowSchema>;

export const compareResultSchema = z.object({ sides: z.array(compareSideSchema), rows: z.array(compareRowSchema), same: z.number().int().nonnegative() });
export type CompareResult = z.infer<typeof compareResultSchema>;

/** One recorded edit of an agent file, with both sides' text (null: no file then, or not known). */
export const agentFileVersionSchema = z.object({
  id: z.string(),
  at: z.string(),
  op: z.enum(['create', 'update', 'delete', 'rename']),
  actor: z.enum(ACTORS),
  cause: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type AgentFileVersion = z.infer<typeof agentFileVersionSchema>;

/** The scope an adopt copies into. */
export const adoptScopeSchema = z.enum(SCOPES);
