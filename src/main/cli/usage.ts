/**
 * Help texts of the `cairn` CLI and the usage error it exits 2 with. Scripts depend on these
 * commands and flags: change them only on purpose.
 */
import { CairnError } from '../../common/errors';
export class UsageError extends CairnError {
  override readonly name = 'UsageError';
}

/** The help of the flags every memory command shares (session-flags.ts). */
const SESSION_FLAGS_HELP = `  --cwd DIR        the checkout (default: the current directory)
  --workspace ID   workspace id (default: derived from the checkout's path)
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
`;

export const MAIN_HELP = `cairn: the memory of your AI coding agents

Usage: cairn [--home DIR] <command> [options]

Commands:
  tool      run one memory command (JSON) and print the tool's text
  mcp       run the MCP server agents connect to (stdio)
  context   print what agents get without a tool call: the memory index, the hot set, and
            the memories relevant to a prompt (for agent hooks)
  pin       pin a memory file, so it is always in the hot set
  unpin     unpin a memory file
  stats     show pins and usage of every memory file
  history   the versions of memory files: list, show (--diff), gc
  restore   write an earlier version of a memory file back: cairn restore PATH --to ID
  undo      undo a change (cairn undo ID, or --last) if its files are still as it left them
  consolidate
            consolidate a scope: propose deleting unused files and merging duplicates, then
            show (--diff), apply (--only PATH...) as one undoable change, or discard
            (\`cairn sweep\`, its older name, runs it too)
  harvest   propose memories from an agent's session: cairn harvest --transcript FILE
  inbox     review proposed memories and agents' changes held for review: list, show,
            approve (--to, --text), reject, review (--scope S --on|--off)
  serve     serve Cairn's web UI on loopback
  setup     connect an agent to Cairn: cairn setup claude|codex|cursor|copilot|gemini [--print | --remove]
  import    propose other memory for your review in the inbox: cairn import --from
            claude|codex|cursor|aegis|kimchi|markdown PATH, or --from cairn memory.tar
  export    write memory as a tar: cairn export [--scope S] > memory.tar
  workspace register checkouts, local or on a host over SSH: add, list, remove, trust
  sync      keep the global memory in step across your machines through a git repository
            you own: cairn sync --remote URL, then cairn sync (--status, --off)

Global options:
  --home DIR   Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
  -h, --help   show help; \`cairn <command> --help\` for a command

Run \`cairn tool --help\` to see how agents read and write memory.
`;

export const TOOL_HELP = `Usage: cairn tool [options] [JSON]

Runs one command of the \`memory\` tool and prints its text on stdout. The command is a JSON
object, given as the argument or on stdin, for example:
  cairn tool '{"command":"view","path":"/memories"}'
  cairn tool '{"command":"create","path":"/memories/project/build.md","file_text":"Run make test."}'

Commands: view, create, str_replace, insert, delete, rename. Paths start with
/memories/global, /memories/project (the git checkout's .cairn/memory) or /memories/workspace.

Options:
  --cwd DIR          directory the agent works in (default: the current directory); the project
                     scope is the git repository containing it
  --workspace ID     workspace id (default: derived from the checkout's path); a workspace
                     registered with \`cairn workspace add\` (local or SSH) brings its checkout
  --mode MODE        exec (default: read and write everything), plan (project read-only),
                     explore (read-only)
  --actor ACTOR      agent (default) or person
  --agent NAME       which agent runs it (claude, codex, gemini, copilot, or its own name),
                     recorded with each change and shown in the app as seen in the workspace
  --agent-session ID the agent's session, recorded with its changes
  --jsonl            read one JSON command per line from stdin and write one JSON line per
                     command: {"ok": true|false, "output": "...", "ms": 0.42}
  --home DIR         Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
  -h, --help         show this help

Exit status: 0 success, 1 the command failed (stdout holds the "Error: ..." text),
2 usage error (bad JSON, unknown flag; message on stderr).
`;

export const SERVE_HELP = `Usage: cairn serve [options]

Web mode: serves Cairn's UI and API on loopback and prints its address, with the access token in
the address's fragment (#token=...). The address and token are also written to <home>/server.json
(mode 0600) for tools that connect by themselves.

The token is kept in <home>/web-token (mode 0600) and stays the same from one start to the next:
a page keeps it after its first visit, reconnects by itself when Cairn runs again, and a bookmark
of the plain address works in that browser.

Options:
  --port N         port (default: 4873; 0 picks a free one)
  --host ADDR      address to bind (default: 127.0.0.1; anything else is reachable by others)
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
  --rotate-token   replace the token first: every page opened with the old one is refused and
                   must open the new address (stop a running server of this home first)
  -h, --help       show this help
`;

export const PIN_HELP = `Usage: cairn pin PATH [options]
       cairn unpin PATH [options]

Pins (or unpins) a memory file: pinned files come first in the hot set that agents get at the
start of every session. PATH is a memory path such as /memories/project/build.md.

Options:
${SESSION_FLAGS_HELP}`;

export const STATS_HELP = `Usage: cairn stats [--json] [options]

Shows every memory file an agent in this checkout sees, with its pin, how often agents used it
(views, writes and pins) and when it was last used and written.

Options:
  --json           print JSON instead of a table
${SESSION_FLAGS_HELP}`;

export const HISTORY_HELP = `Usage: cairn history [PATH] [options]
       cairn history show ID [--diff]
       cairn history gc

Every change to a memory file (by an agent, by you in the UI, a rename, a delete) is kept as a
version with the bytes before and after, under Cairn's home (never in a memory root).

  cairn history [PATH]     versions newest first: of the memory this checkout sees, of a file,
                           or of everything below a directory
  cairn history --deleted  recently deleted files (all, or below PATH), each with the version
                           that brings it back: cairn restore PATH --to ID
  cairn history show ID    the content a version left (for a delete, what it took away);
                           --diff: the change as a unified diff
  cairn history gc         collect versions past retention: older than 90 days, except the
                           newest 20 of each file, and at most 64 MiB per scope

Options:
  --scope S        only the versions of one scope: global, project or workspace
  --json           print JSON instead of a table
  --limit N        at most N versions (default 50)
${SESSION_FLAGS_HELP}`;

export const HARVEST_HELP = `Usage: cairn harvest [--cwd DIR]                    harvest this checkout's sessions now
       cairn harvest --transcript FILE [options]       harvest one session
       cairn harvest --enable | --disable | --status [--json] | --retry   [--cwd DIR]
       cairn harvest --hook [--home DIR]               (what Claude Code's hooks run)

Proposes memories from the agents' sessions (Claude Code's transcripts, ~/.claude/projects/*/*.jsonl,
and Codex's rollouts, ~/.codex/sessions/*/*/*/rollout-*.jsonl) into Cairn's inbox, for you to review
with cairn inbox. Only the part of a session not harvested yet is read; every candidate is checked
(evidence quoted from the session, your own words for a preference or convention, no secret, no
repeat of the inbox, of what you rejected, or of memory) and what was skipped is counted.

A model (command or http) reads a long session in parts of up to 60,000 characters, one call each;
each part is recorded done as its answer comes, so a run that stops (a crash, a failed call) goes on
from there next time. A run sends at most the setting harvestBudget (20 calls and 1,500,000
characters by default) and says how many parts wait for the next run. It proposes the 10 surest of
all it found and holds the rest back (cairn inbox list --held).

Options:
  --transcript FILE   one session's transcript (without it: every session of this checkout)
  --extractor NAME    rules (offline: what you said outright, such as "remember that ..."), command
                      or http (a model: the settings harvestCommand / harvestHttp); default: the
                      setting harvestExtractor, else rules
  --dry-run           check and report, but propose nothing and leave the session unharvested
  --enable, --disable turn harvest by the agents' hooks (and the app's pickup of Codex sessions idle
                      for 30 minutes) on or off for this checkout's workspace; off until you turn it on
  --status            whether it is on, what runs, the last run and any failure
  --retry             run this workspace's failed harvests again now
  --hook              read a Claude Code hook's JSON on stdin and, when harvest is on for its
                      workspace, queue its transcript and start the queue's worker; returns at once
  --json              print JSON
  --cwd DIR           the checkout (default: the transcript's own working directory, else here)
  --home DIR          Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
`;

export const INBOX_HELP = `Usage: cairn inbox [list] [--held | --all] [--json]
       cairn inbox show ID
       cairn inbox approve ID [--to PATH] [--text TEXT]
       cairn inbox reject ID
       cairn inbox review [--scope global|project|workspace] [--on | --off]

Memories proposed from the agents' sessions wait here for you. Approving adds one as a line to a
memory file (the suggested one, or --to PATH), as you, with the cause harvest:ID in the history, so
cairn undo --last takes it back; --text approves your edit of it. Rejecting keeps the same text from
being proposed again for 90 days. The inbox holds at most 500 pending items: past that nothing more
is proposed (by a harvest, an agent, review mode, an import) until you decide some. A listing shows
the newest 500. A file of the inbox that is no item Cairn can read is listed as damaged (KIND
damaged), with what is wrong and where it is; Cairn leaves it as it is for you to look at and remove.

A harvest run proposes at most 10 memories, the surest; what else it found is held back: kept in the
inbox, never asked about, listed with --held, and approved or rejected like any item (held items go
after 90 days).

Review mode (off by default) is set per scope of this checkout: while it is on, an agent's writes to
that scope (create, str_replace, insert, delete, rename) change nothing and wait here instead, as a
change (KIND change); \`show ID\` prints it as a diff. Approving applies it as you (cause review:ID,
undoable), only if the file is still as the agent saw it; rejecting drops it. Your own edits are
never held for review. \`review\` without --on or --off shows each scope's state.

Options:
  --held           list the items held back
  --all            list decided items too
  --json           print JSON
  --scope S        the scope review mode is set for: global, project or workspace
  --on, --off      turn review mode on or off for --scope
  --cwd DIR        the checkout (default: the current directory; approve: the item's own)
  --workspace ID   workspace id (default: derived from the checkout's path)
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
`;

export const RESTORE_HELP = `Usage: cairn restore PATH --to ID [options]

Writes the content that version ID of PATH left (for a delete, what it took away) back to PATH, as
a new change of yours: it is in the history too, and can itself be restored over. A deleted file is
created again. \`cairn history PATH\` lists the versions and their ids.

Options:
${SESSION_FLAGS_HELP}`;

export const UNDO_HELP = `Usage: cairn undo ID [options]
       cairn undo --last [options]

Undoes the change version ID belongs to (the whole command: a directory's delete brings every
file back), or with --last the newest change in the scopes this checkout sees. Only if every file
is still what that change left: otherwise it says which file was changed, deleted or made again
since, and changes nothing. The undo is itself a change in the history, so it can be undone.

Options:
${SESSION_FLAGS_HELP}`;

export const CONTEXT_HELP = `Usage: cairn context [options]

Prints what agents get without a tool call: the memory index (every file with its description),
the hot set (pinned and most used files), and, given a prompt, the memories relevant to it.

Options:
  --prompt TEXT        add the memories relevant to TEXT
  --prompt-stdin       read the prompt from stdin
  --format FORMAT      text (default), json, or claude-hook: the JSON Claude Code's SessionStart
                       and UserPromptSubmit hooks accept; the hook input is read from stdin;
                       copilot-hook: the same for Copilot CLI's sessionStart and userPromptSubmitted
                       hooks (its own input; a top-level additionalContext)
  --cwd DIR            the checkout (default: the current directory, or the hook's cwd)
  --workspace ID       workspace id (default: derived from the checkout's path)
  --agent NAME         which agent's hook this is (claude, codex, gemini, copilot): the app
                       then shows it as seen in the workspace (with the hook's session)
  --home DIR           Cairn's home (default: $CAIRN_HOME, else ~/.cairn)

Claude Code (settings.json):
  "hooks": {
    "SessionStart": [{ "hooks": [{ "type": "command", "command": "cairn context --format claude-hook" }] }],
    "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "cairn context --format claude-hook" }] }]
  }
`;

export const MCP_HELP = `Usage: cairn mcp [options]

Runs Cairn's MCP server on stdio for one agent session: the \`memory\` tool, \`memory_search\`, and the
memory index and hot set in its instructions, and resources: cairn://index, cairn://hot-set and
one per memory file (cairn://memory/<scope>/<path>, subscribable). The prompt \`harvest\` asks the
agent to propose memories from its session with the tool \`memory_propose\`, for your review in the
inbox; the prompt \`consolidate\` gives it a scope's files and asks for a consolidation with the tool
\`memory_consolidate\`, kept as a proposal for your review (cairn consolidate show ID). Neither writes
memory. Agents start it themselves (see \`cairn setup\`).

Options:
  --cwd DIR        the directory the agent works in (default: the current directory)
  --workspace ID   a registered workspace (default: the one containing --cwd, else one registered
                   for the git root of --cwd)
  --mode MODE      exec (default), plan (project read-only) or explore (read-only)
  --session-context on|off
                   off: leave the memory index and hot set out of the instructions, for an agent
                   whose hooks give them already (what \`cairn setup claude\` writes); default on
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
`;

export const SETUP_HELP = `Usage: cairn setup claude|codex|cursor|copilot|gemini [--print | --remove] [options]

Connects an agent to Cairn: writes the MCP server that runs \`cairn mcp\` (this checkout's
bin/cairn, by its absolute path) into the agent's own configuration, and for Claude Code the hooks
that give it the memory index, the hot set and the relevant memories:
  claude   <project>/.mcp.json (mcpServers.cairn) and <project>/.claude/settings.json (SessionStart
           and UserPromptSubmit hooks running \`cairn context --format claude-hook\`)
  codex    $CODEX_HOME/config.toml, default ~/.codex/config.toml ([mcp_servers.cairn])
  cursor   <project>/.cursor/mcp.json (mcpServers.cairn)
  copilot  $COPILOT_HOME/mcp-config.json, default ~/.copilot/mcp-config.json (mcpServers.cairn), and
           settings.json beside it (sessionStart and userPromptSubmitted hooks running \`cairn context
           --format copilot-hook\`, preCompact and sessionEnd running \`cairn harvest --hook\`)
  gemini   <project>/.gemini/settings.json (mcpServers.cairn; SessionStart and BeforeAgent hooks
           running \`cairn context --format claude-hook\`, SessionEnd running
           \`cairn harvest --hook\`), and $GEMINI_CLI_HOME/.gemini/policies/cairn.toml, default
           ~/.gemini/policies/cairn.toml (memory_search and the memory tool's view run without asking)
<project> is the git checkout containing --cwd (or --cwd itself outside a repository).

Writing merges: only Cairn's entry is added (once: running setup again changes nothing), the rest
of the file stays byte for byte (layout, comments, line endings), the previous file is kept in
<home>/backups/ (never beside it), and the new one replaces it atomically. A file that does not
parse is left untouched, with its line and column (exit status 1).

--remove takes Cairn's entries out again (the MCP server, the hooks; whatever launcher or home they
name) and nothing else, keeping a backup: when nothing else changed since setup, the file is left
exactly as it was before setup, and one setup created is deleted (with the folder setup made for it).

Options:
  --print        print the configuration instead of writing it
  --remove       remove Cairn's entries from these files
  --http         with --print: the configuration for reaching Cairn by URL instead (its MCP endpoint
                 at /mcp on the app or \`cairn serve\`, token from the environment: CAIRN_MCP_TOKEN)
  --cwd DIR      the project (default: the current directory)
  --home DIR     Cairn's home, passed to the server and hooks as CAIRN_HOME / --home
                 (default: $CAIRN_HOME when set, else the server's default, ~/.cairn)
  -h, --help     show this help

Exit status: 0 done (or already set up), 1 a file could not be read, parsed or written,
2 usage error (unknown agent, bad flag).
`;

export const WORKSPACE_HELP = `Usage: cairn workspace add|list|remove|trust [options]

  cairn workspace add --name NAME --path DIR [--id ID]
  cairn workspace add --name NAME --ssh [USER@]HOST[:PORT]:/ABS/PATH [--identity FILE]
                      [--known-hosts FILE] [--id ID]
      registers a checkout and prints its workspace id. HOST may be an alias of ~/.ssh/config
      (HostName, User, Port and IdentityFile apply); keys come from --identity, ssh-agent
      (SSH_AUTH_SOCK) and ~/.ssh/id_*. A host whose key is not trusted yet is registered, and
      \`cairn workspace trust ID\` is the next step.
  cairn workspace list [--json]
  cairn workspace remove ID
      removes the registration and the workspace scope; never the checkout or its project memory.
  cairn workspace trust ID [--yes]
      connects, shows the host key's fingerprint, and records it in <home>/known_hosts when you
      confirm (--yes: without asking). Host keys in ~/.ssh/known_hosts are trusted too.

Then: cairn tool --workspace ID '{"command":"view","path":"/memories/project"}'

Options:
  --home DIR   Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
  -h, --help   show this help
`;

export const CONSOLIDATION_HELP = `Usage: cairn consolidate [--scope S] [--days N] [--extractor E] [--json]
       cairn consolidate list [--json]
       cairn consolidate show ID [--diff] [--json]
       cairn consolidate apply ID [--only PATH...]
       cairn consolidate discard ID

Consolidates one scope's memory. \`cairn consolidate\` proposes, and writes nothing to memory:
  - delete: a file no agent has used for N days (default 60) that nobody wrote or created in them;
    never a pinned file;
  - merge: files saying the same thing (most of their words shared); the most used one is kept,
    with the others' lines it lacks added, and the others are deleted;
  - rewrite, rename (a model's only): a file edited into a shorter or corrected form, or given a
    name that says what it holds.
The extractor is the setting consolidationExtractor (default rules, offline), or --extractor:
rules, or command / http, a model configured as for the harvest (harvestCommand, harvestHttp),
given the files (secrets removed) as data. Every change it answers is checked: one not based on the file
as it is, or deleting, merging or renaming away a pinned or recently written file, or with
flagged content, is refused and listed with why. Ctrl-C stops the model. The agent you work
with can propose too, through MCP: its prompt \`consolidate\` and tool \`memory_consolidate\`.
The proposal also lists what changed in the scope since the last consolidation; when nothing
did and no file is unused, the answer is "nothing to consolidate". A newer proposal for a scope
replaces the older one; a proposal expires after 7 days.

  cairn consolidate show ID      the changes with their reasons and each file's usage;
                                 --diff: each change as a diff against the file as it is now
  cairn consolidate apply ID     applies the changes (all, or only those about each PATH given
                                 with --only) as ONE change: cairn undo takes back the whole
                                 consolidation. A change whose file was changed since the
                                 proposal is skipped and reported.
  cairn consolidate discard ID   drops the proposal; nothing is written

Options:
  --scope S        global, project (default) or workspace
  --days N         days without use before a file is proposed for deletion (default 60)
  --extractor E    rules, command or http (default: the setting consolidationExtractor)
  --json           print JSON
  --cwd DIR        the checkout (default: the current directory)
  --workspace ID   workspace id (default: derived from the checkout's path); a workspace
                   registered with \`cairn workspace add\` (local or SSH) brings its checkout
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
`;

export const IMPORT_HELP = `Usage: cairn import --from claude|codex|cursor|aegis|kimchi|markdown PATH [options]
       cairn import --from cairn FILE|- [options]

Proposes memory from elsewhere for your review: every entry becomes a proposal in the inbox
(pending; cairn inbox list, or the app's Inbox), with the file and line it came from as its
evidence. Nothing is written to memory until you approve it. One import proposes at most 200
entries, and no more than the inbox has room for (it holds 500 pending); the rest are counted,
with the line they start at, for you to import once you have reviewed these.

  claude    CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md, .claude/rules/**/*.md; auto memory
            (MEMORY.md and its topic files, ~/.claude/projects/<project>/memory/)
  codex     AGENTS.md, AGENTS.override.md; ~/.codex/memories (MEMORY.md, memory_summary.md)
  cursor    .cursorrules and .cursor/rules/**/*.mdc (an .mdc rule's description is the context)
  aegis     memories.jsonl: one JSON object per line, {"text", "scope", "tags", ...}
  kimchi    MEMORY.md / USER.md: entries separated by a line holding only \u00a7
  markdown  any Markdown file (a directory: its *.md files)
PATH is a file, or a directory: the files the format keeps there. Markdown is split into entries:
each list item or paragraph, with the headings above it kept as its context; frontmatter, code
fences (joined to a line ending in ":"), comments and @imports are not entries.

Each entry is checked as a harvested memory is: the scanners (a secret or an injected instruction
is refused, by rule and line, never shown), and no repeat of another entry, of a pending proposal,
of one you rejected in the last 90 days, or of a line of any memory file (reported as already
present). A line that cannot be read (not UTF-8, not JSON, an entry over 1000 characters) is
reported with its number and skipped.

Where entries go, unless --scope says: a file inside a git checkout, project; Claude Code's auto
memory, workspace (the own memory of the checkout its folder is named after: this one or a
registered workspace; another's is refused unless --cwd, --workspace or --scope says where); any
other file (~/.claude/CLAUDE.md, ~/.codex, Kimchi's
stores, ...), global; Aegis's own "scope" (user: global, workspace: project, session: workspace)
and Kimchi's USER.md (global preferences) are kept. The category (and so the file it is added to)
is guessed from the words and headings; you can file it elsewhere when approving.

--from cairn reads a tar of \`cairn export\` (FILE, or - for stdin): each file absent here is held
in the inbox as a change that would create it, each that differs as one that would replace it
(cairn inbox show ID shows the diff); a file with the same bytes is already present, so importing
an export into the same home adds nothing. An archive with a link, a name outside the scopes (..,
absolute, hidden), an entry over 100 KiB, text that is not UTF-8, or a name twice is refused whole,
each such entry named, and nothing is added.

Options:
  --scope S        put every entry (or, with cairn, only that scope's files) in S: global,
                   project or workspace
  --dry-run        check and report, add nothing
  --json           print JSON
  --cwd DIR        the checkout whose project and workspace memory is meant (default: the checkout
                   PATH is in, else the current directory)
  --workspace ID   a registered workspace instead
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)

Exit status: 0 done (bad lines are reported and skipped), 1 nothing imported (a missing file, an
archive refused, a scope not available here), 2 usage error.
`;

export const EXPORT_HELP = `Usage: cairn export [--scope S] [--cwd DIR | --workspace ID] > memory.tar

Writes the memory files of the scopes this checkout sees (or only --scope S) to stdout as a tar:
global/..., project/..., workspace/..., one entry per file, sorted by name, each with mode 0644 and
the time 1970-01-01, so the same memory always gives the same bytes. Pins, usage, history and the
inbox are not exported. What was exported, and any scope not available here, is said on stderr.
Read it back with cairn import --from cairn memory.tar.

Options:
  --scope S        only this scope: global, project or workspace
  --cwd DIR        the checkout (default: the current directory)
  --workspace ID   a registered workspace instead
  --home DIR       Cairn's home (default: $CAIRN_HOME, else ~/.cairn)

Exit status: 0 written, 1 the chosen scope is not available here (nothing written), 2 usage error
(also when stdout is a terminal).
`;

export const SYNC_HELP = `Usage: cairn sync --remote URL [--scope global]   set up, and sync now
       cairn sync --scope workspace               this checkout's workspace memory syncs too
       cairn sync                                 sync now
       cairn sync --status [--json]               where it stands
       cairn sync --off                           stop syncing
       cairn sync --scope workspace --off         this workspace's memory no longer syncs

Keeps your global memory in step across your machines through a git repository you own: a
private repository on a forge, a bare repository over SSH, or a local path. Cairn runs your own
git, with your credentials and SSH agent, in a repository of its own under the home (never in a
checkout). Changes made on both sides are merged; a file changed differently on both keeps this
machine's side and puts the other in the inbox. What comes in passes the same checks as an
agent's write: a flagged file (a secret, an instruction to agents, hidden text), and everything
while the global scope is in review mode, waits in the inbox until you approve it. Every file
taken in is a version in the history (by sync), undone like any other. Pins and usage stay on
each machine. A workspace's memory syncs only once you turn it on, keyed by its repository (origin
URL, else first commit), so clones of one repository on your machines share it.

Options:
  --remote URL   the git repository to sync with (URL or path); saved in the settings
  --scope S      global (the default), or workspace: the workspace of --cwd (or --workspace ID)
  --status       the last sync: when, what went out and came in, what waits, errors
  --off          stop syncing; memory stays as it is
  --json         with --status: as JSON
  --cwd DIR      with --scope workspace: a folder of the checkout (default: the current directory)
  --workspace ID with --scope workspace: a registered workspace instead
  --home DIR     Cairn's home
`;
