/**
 * The memory tool's fixed vocabulary and limits. Every host (CLI, MCP, API, UI) imports these;
 * nothing else in the tree may restate a cap, a scope name or a mode.
 */

/** The virtual root every model-facing path starts with. */
export const MEMORY_ROOT = '/memories';

export const SCOPES = ['global', 'project', 'workspace'] as const;
export type Scope = (typeof SCOPES)[number];

export const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] as const;
export type CommandName = (typeof COMMANDS)[number];

/** exec: read and write every scope; plan: write global and workspace, read project; explore: read only. */
export const MODES = ['exec', 'plan', 'explore'] as const;
export type Mode = (typeof MODES)[number];

/**
 * Who made a change: an agent through the tool, a person through the UI, something outside Cairn
 * (an editor, a pull), or a sync bringing another machine's change (main/sync).
 */
export const ACTORS = ['agent', 'person', 'external', 'sync'] as const;
export type Actor = (typeof ACTORS)[number];

/**
 * The actor a stored line says, as it is named now; null when it names none. Homes written before
 * the person's actor was called `person` say `user`: each stored format (history log, journal,
 * usage) reads it through this, so their older lines stay the person's.
 */
export function storedActor(raw: unknown): Actor | null {
  if (raw === 'user') return 'person';
  return (ACTORS as readonly unknown[]).includes(raw) ? (raw as Actor) : null;
}

/** Largest memory file, in bytes of UTF-8. */
export const MAX_FILE_BYTES = 100 * 1024;
/** Most files one scope may hold; enumeration stops here. */
export const MAX_FILES_PER_SCOPE = 1000;
/** A view of a directory lists this many levels below it. */
export const VIEW_DEPTH = 2;
/** Longest single path segment, in UTF-8 bytes (the common filesystem limit). */
export const MAX_SEGMENT_BYTES = 255;
/** Longest virtual path accepted, in characters. */
export const MAX_PATH_CHARS = 1024;
/** The reference implementation's line cap for a view, and the width of its line numbers. */
export const MAX_VIEW_LINES = 999_999;
export const LINE_NUMBER_WIDTH = String(MAX_VIEW_LINES).length;
/** Prefix of names Cairn keeps for itself inside a memory root (atomic-write temp files). */
export const RESERVED_NAME_PREFIX = '.cairn';

// ---- Context for agents (docs/architecture.md, "Context for agents") ----
/** The index reads at most this much of each file, for its frontmatter description. */
export const INDEX_HEAD_BYTES = 4 * 1024;
/** A description in the index is one line of at most this many characters. */
export const DESCRIPTION_MAX_CHARS = 200;
/** The whole index stays under this many bytes; the rest is summarized as a count. */
export const INDEX_MAX_BYTES = 24 * 1024;
/** The hot set shows at most this much of one file, and this much in all. */
export const HOT_FILE_BYTES = 16 * 1024;
export const HOT_TOTAL_BYTES = 48 * 1024;
/** Usage decays with this half-life when ranking the hot set. */
export const USAGE_HALF_LIFE_MS = 7 * 24 * 60 * 60 * 1000;
/** Memories relevant to a prompt: at most this many, in at most this many bytes. */
export const RELEVANT_MAX_FILES = 10;
export const RELEVANT_MAX_BYTES = 2 * 1024;

// ---- Version history ----

/** Versions are kept this many days, but always the newest HISTORY_KEEP_NEWEST of each file... */
export const HISTORY_KEEP_DAYS = 90;
export const HISTORY_KEEP_NEWEST = 20;
/** ...and at most this many bytes of content per scope root. */
export const HISTORY_MAX_BYTES_PER_SCOPE = 64 * 1024 * 1024;

// ---- The inbox (what waits for a person's review) ----
/**
 * Most entries one `cairn import` (or one Adopt) proposes: a long evening's review for a person,
 * and more than any real CLAUDE.md or AGENTS.md holds. The entries past it are counted and named,
 * never proposed; the person imports the rest once these are reviewed, or a smaller file.
 */
export const MAX_IMPORT_PROPOSALS = 200;
/**
 * Most items the inbox holds pending, whatever proposes them (an import, Adopt, a harvest, an
 * agent's memory_propose, review mode, an archive's held changes). Past it a producer adds nothing
 * and says why, until a person decides some; a listing reads at most this many.
 */
export const MAX_INBOX_PENDING = 500;
/**
 * Largest inbox item file read. The largest Cairn writes is an agent's change held for review
 * (two texts of at most MAX_FILE_BYTES, escaped as JSON); a bigger one is listed as damaged.
 */
export const MAX_INBOX_ITEM_BYTES = 4 * 1024 * 1024;
