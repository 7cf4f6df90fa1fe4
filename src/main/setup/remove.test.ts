// Taking Cairn out of config texts: only Cairn's entries, the rest kept as written.
import { parse } from 'smol-toml';
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

  it('rewrites the file when the entry is an inline table, saying so', () => {
    const out = removeCodexServer('model = "o3"\nmcp_servers = { cairn = { command = "cairn", args = ["mcp"] }, docs = { command = "d" } }\n', 'cairn', 'config.toml');
    expect(parse(out.text!)).toEqual({ model: 'o3', mcp_servers: { docs: { command: 'd' } } });
    expect(out.notes[0]).toMatch(/rewritten as a whole/);
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

  it('takes out the server and the hooks, and what they leave empty only in the pruned form', () => {
    const servers = removeMcpServer({ mcpServers: { cairn: { command: 'cairn', args: ['mcp'] } } }, 'cairn', 'f');
    expect([servers.kept, servers.pruned]).toEqual([{ mcpServers: {} }, {}]);
    const hooks = removeClaudeHooks(
      {
        hooks: {
          SessionStart: [{ hooks: [{ type: 'command', command: "'/a b/cairn' context --format claude-hook --home /h" }] }],
          Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say hi' }, { type: 'command', command: 'cairn harvest --hook' }] }],
        },
      },
      'f',
    );
    expect(hooks.pruned).toEqual({ hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say hi' }] }] } });
    expect(hooks.kept).toEqual({ hooks: { SessionStart: [], Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say hi' }] }] } });
    expect(hooks.changes).toEqual(['removed the SessionStart hook', 'removed the Stop hook']);
  });
});
