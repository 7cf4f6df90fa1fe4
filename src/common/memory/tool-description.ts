/**
 * What an agent is told about the `memory` tool: its description (the protocol: check before
 * acting, record what lasts, fix what is wrong) and the scopes. One text for every host.
 */
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE } from './constants';

export const MEMORY_TOOL_DESCRIPTION = `Persistent memory that survives between sessions, kept as Markdown files under /memories.

Use it like this:
- Before acting on a task, check relevant memories: view /memories (or a scope) and read the files that matter.
- Record durable facts, the user's preferences, project conventions and lessons learned (what worked, what failed and why) as soon as you learn them. Keep each file focused and short; start it with YAML frontmatter \`description: ...\` (one line) so it shows well in the memory index.
- When a memory turns out wrong or stale, fix it (str_replace) or delete it. Never store secrets, tokens or passwords: writes containing them are refused.

Scopes:
- /memories/global/: the user's own, shared by every project (preferences, habits).
- /memories/project/: this codebase, shared by its checkouts and team (conventions, architecture, build and test facts); lives in the repository's .cairn/memory and is reviewed like code.
- /memories/workspace/: this checkout only (work in progress, local setup).

Commands: view (a directory lists two levels; a file shows numbered lines; view_range [start, end]), create (never overwrites), str_replace (old_str must occur exactly once; it may span lines), insert (after insert_line; 0 is the top), delete, rename (within a scope). Limits: ${MAX_FILE_BYTES / 1024} KiB per file, ${MAX_FILES_PER_SCOPE} files per scope, UTF-8 text.`;

export const MEMORY_SEARCH_DESCRIPTION =
  'Search memory files by keywords (BM25 over paths, descriptions and the start of each file): returns the best-matching files with their paths and a matching line each. Use it when the memory index is long; then view the files you need.';
