// Taking Cairn out of config texts: only Cairn's entries, the rest kept as written.
import { describe, expect, it } from 'vitest';
import { isCairnServer, removeClaudeHooks, removeMcpServer } from './json-config';
import { removeCodexServer } from './toml-config';

describe('removeCodexServer', () => {
  it('cuts the [mcp_servers.cairn] table and its sub-tables as text, keeping comments around them', () => {
    const text = '# top\nmodel = "o3"\n\n[mcp_servers.cairn]\ncommand = "/x/bin/cairn"\nargs = ["mcp"]\n\n[mcp_servers.cairn.env]\nCAIRN_HOME = "/h"\n# about docs\n[mcp_servers.docs]\ncommand = "d"\n';
    const out = removeCodexServer(text, 'cairn', 'config.toml');
    expect(out.text).toBe('# top\nmodel = "o3"\n\n# about docs\n[mcp_servers.docs]\ncommand = "d"\n');
    expect(out.changes).toEqual(['removed [mcp_servers.cairn]']);
  });

  it('takes out an entry set by dotted keys or an inline-table line; refuses one inside an inline mcp_servers', () => {
    expect(removeCodexServer('# me\n[mcp_servers]\ncairn = { command = "cairn", args = ["mcp"] }\ndocs = { command = "d" }\n', 'cairn', 'c').text).toBe('# me\n[mcp_servers]\ndocs = { command = "d" }\n');
    expect(removeCodexServer('model = "o3" # x\nmcp_servers.cairn.command = "cairn"\nmcp_servers.cairn.args = ["mcp"]\n', 'cairn', 'c').text).toBe('model = "o3" # x\n');
    const inline = 'model = "o3"\nmcp_servers = { cairn = { command = "cairn", args = ["mcp"] }, docs = { command = "d" } }\n';
    expect(() => removeCodexServer(inline, 'cairn', 'config.toml')).toThrow(/cannot remove its \[mcp_servers.cairn\] entry.*inline table.*left untouched\. Take \[mcp_servers.cairn\] out by hand/);
  });

  it('leaves a cairn table that does not run Cairn, and a file without one', () => {
    expect(removeCodexServer('[mcp_servers.cairn]\ncommand = "stone"\n', 'cairn', 'c').text).toBeNull();
    expect(removeCodexServer('model = "o3"\n', 'cairn', 'c')).toEqual({ text: null, changes: [], notes: [] });
  });
});

describe('JSON removal', () => {
  it('knows Cairn\u2019s server by its command or its loopback URL', () => {
    expect(isCairnServer({ command: '/opt/cairn/bin/cairn', args: ['mcp', '--cwd', '${workspaceFolder}'] })).toBe(true);
    expect(isCairnServer({ type: 'http', url: 'http://127.0.0.1:4873/mcp?cwd=%2Fsrc' })).toBe(true);
    expect(isCairnServer({ command: 'cairn', args: ['serve'] })).toBe(false);
    expect(isCairnServer({ url: 'https://example.com/mcp' })).toBe(false);
  });

  it('takes out the server and the hooks; what they leave empty goes, unless the file had it before setup', () => {
    const servers = '{\n  "mcpServers": {\n    "cairn": { "command": "cairn", "args": ["mcp"] }\n  }\n}\n';
    expect(removeMcpServer(servers, 'cairn', 'f')).toEqual({ text: '', changes: ['removed MCP server "cairn"'], notes: [], empty: true });
    expect(removeMcpServer(servers, 'cairn', 'f', { text: '{ "mcpServers": { } }\n' }).text).toBe('{\n  "mcpServers": { }\n}\n');
    const settings = JSON.stringify(
      {
        hooks: {
          SessionStart: [{ hooks: [{ type: 'command', command: "'/a b/cairn' context --format claude-hook --home /h" }] }],
          Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say hi' }, { type: 'command', command: 'cairn harvest --hook' }] }],
        },
      },
      null,
      2,
    );
    const hooks = removeClaudeHooks(settings, 'f');
    expect(JSON.parse(hooks.text!)).toEqual({ hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say hi' }] }] } });
    expect(hooks.changes).toEqual(['removed the SessionStart hook', 'removed the Stop hook']);
    // "hooks" was there before setup, with SessionStart empty: both stay.
    expect(JSON.parse(removeClaudeHooks(settings, 'f', { text: '{"hooks": {"SessionStart": []}}' }).text!)).toEqual({
      hooks: { SessionStart: [], Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say hi' }] }] },
    });
  });
});
