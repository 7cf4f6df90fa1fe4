/**
 * Help texts of the `cairn` CLI and the usage error it exits 2 with. Scripts depend on these
 * commands and flags: change them only on purpose.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const MAIN_HELP = `cairn: the memory of your AI coding agents

Usage: cairn [--home DIR] <command> [options]

Commands:
  tool      run one memory command (JSON) and print the tool's text
  serve     serve Cairn's web UI on loopback

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
  --workspace ID     workspace id (default: derived from the checkout's path)
  --mode MODE        exec (default: read and write everything), plan (project read-only),
                     explore (read-only)
  --actor ACTOR      agent (default) or user
  --jsonl            read one JSON command per line from stdin and write one JSON line per
                     command: {"ok": true|false, "output": "...", "ms": 0.42}
  --home DIR         Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
  -h, --help         show this help

Exit status: 0 success, 1 the command failed (stdout holds the "Error: ..." text),
2 usage error (bad JSON, unknown flag; message on stderr).
`;

export const SERVE_HELP = `Usage: cairn serve [options]

Serves Cairn's web UI on loopback and prints its address (with the access token).

Options:
  --port N       port (default: 4873; 0 picks a free one)
  --cwd DIR      the checkout whose workspace and project the page shows (default: current directory)
  --home DIR     Cairn's home (default: $CAIRN_HOME, else ~/.cairn)
  -h, --help     show this help
`;
