/**
 * `cairn setup <agent> --http --print`: the configuration of an agent that reaches Cairn by URL,
 * over Streamable HTTP at the running app's or `cairn serve`'s `/mcp`, instead of starting
 * `cairn mcp` itself. Print-only on purpose: the URL configuration needs the MCP token, which these
 * snippets take from the environment (CAIRN_MCP_TOKEN, filled from <home>/mcp-token) so that it is
 * never written into a project file that may be committed.
 * - Claude Code: `.mcp.json` `{type: "http", url, headers}` (Claude Code expands `${VAR}`), or
 *   `claude mcp add --transport http`.
 * - Codex: `[mcp_servers.cairn]` with `url` and `bearer_token_env_var`.
 * - Cursor: `.cursor/mcp.json` `{url, headers}` (Cursor expands `${env:VAR}`).
 * The session is bound to the project by `?cwd=<project root>` (src/main/mcp/http-endpoint.ts).
 */
import * as path from 'node:path';
import { stringify } from 'smol-toml';
import { MCP_HTTP_PATH } from '../../common/api/transport';
import { shellLine } from './launcher';
import { AGENT_NAMES, SERVER_NAME, type Agent } from './setup';

const TOKEN_ENV = 'CAIRN_MCP_TOKEN';
/** `cairn serve`'s default port, where the app also listens when it is free. */
const DEFAULT_MCP_BASE = 'http://127.0.0.1:4873';

export interface HttpSetupOptions {
  /** The project root the session is bound to. */
  root: string;
  /** The /mcp URL of a running server, or null (then the default address). */
  runningUrl: string | null;
  /** The file holding the token (<home>/mcp-token). */
  tokenFile: string;
}

function mcpUrlFor(options: Pick<HttpSetupOptions, 'root' | 'runningUrl'>): string {
  const base = options.runningUrl ?? `${DEFAULT_MCP_BASE}${MCP_HTTP_PATH}`;
  return `${base}?cwd=${encodeURIComponent(options.root)}`;
}

/** What --http --print shows for `agent`: each file's part under a `# ...` line, as renderPlan does. */
export function renderHttpSetup(agent: Agent, options: HttpSetupOptions): string {
  const name = AGENT_NAMES[agent];
  const url = mcpUrlFor(options);
  const exportLine = `export ${TOKEN_ENV}="$(cat ${shellLine([options.tokenFile])})"`;
  const where = options.runningUrl ? `Cairn is serving MCP at ${options.runningUrl}` : `Cairn's app or \`cairn serve\` must be running (default address ${DEFAULT_MCP_BASE})`;
  const preamble = [`# ${name} by URL: ${where}.`, `# Set the token in the environment the agent starts from, e.g.: ${exportLine}`];
  switch (agent) {
    case 'claude':
      return [
        ...preamble,
        `# ${name}: merge into ${path.join(options.root, '.mcp.json')}`,
        `${JSON.stringify({ mcpServers: { [SERVER_NAME]: { type: 'http', url, headers: { Authorization: `Bearer \${${TOKEN_ENV}}` } } } }, null, 2)}`,
        '',
        `# or with Claude Code's own CLI (run in ${options.root}):`,
        `${shellLine(['claude', 'mcp', 'add', '--scope', 'project', '--transport', 'http', SERVER_NAME, url, '--header', `Authorization: Bearer \${${TOKEN_ENV}}`])}`,
        '',
      ].join('\n');
    case 'cursor':
      return [
        ...preamble,
        `# ${name}: merge into ${path.join(options.root, '.cursor', 'mcp.json')}`,
        `${JSON.stringify({ mcpServers: { [SERVER_NAME]: { url, headers: { Authorization: `Bearer \${env:${TOKEN_ENV}}` } } } }, null, 2)}`,
        '',
      ].join('\n');
    case 'gemini':
      // Gemini CLI expands $VAR in its settings' strings.
      return [
        ...preamble,
        `# ${name}: merge into ${path.join(options.root, '.gemini', 'settings.json')}`,
        `${JSON.stringify({ mcpServers: { [SERVER_NAME]: { httpUrl: url, headers: { Authorization: `Bearer $${TOKEN_ENV}` } } } }, null, 2)}`,
        '',
      ].join('\n');
    case 'copilot':
      // The shell expands the token as the line runs: it goes into ~/.copilot/mcp-config.json, a file of the person's home, never a project's.
      return [
        ...preamble,
        `# ${name}: add it with Copilot CLI's own CLI (into $COPILOT_HOME/mcp-config.json, default ~/.copilot); this entry binds sessions to ${options.root}`,
        `copilot mcp add --transport http ${shellLine([SERVER_NAME, url])} --header "Authorization: Bearer $${TOKEN_ENV}"`,
        '',
      ].join('\n');
    case 'codex':
      return [
        ...preamble,
        `# ${name}: merge into config.toml ($CODEX_HOME, default ~/.codex); this entry binds sessions to ${options.root}`,
        stringify({ mcp_servers: { [SERVER_NAME]: { url, bearer_token_env_var: TOKEN_ENV } } }),
        '',
      ].join('\n');
  }
}
