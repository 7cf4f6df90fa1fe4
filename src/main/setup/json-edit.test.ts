// Cairn's entries put into and taken out of JSON text: the rest of the file stays byte for byte in
// every layout a person writes (one line, compact, tabs, CRLF, comments, a byte order mark), and
// taking out what was put in gives the text back exactly.
import { describe, expect, it } from 'vitest';
import { contextHook, harvestHook, mergeClaudeHooks, mergeMcpServer, removeClaudeHooks, removeMcpServer } from './json-config';
import { readJson } from './json-edit';

const entry = { command: '/opt/cairn/bin/cairn', args: ['mcp'], env: { CAIRN_HOME: '/h' } };
const hooks = [contextHook('/opt/cairn/bin/cairn context --format claude-hook'), harvestHook('/opt/cairn/bin/cairn harvest --hook')];

const LAYOUTS: Array<[string, string]> = [
  ['one line, spaced', '{ "permissions": { "allow": ["Bash(npm test)"] }, "hooks": {} }\n'],
  ['compact, no final newline', '{"mcpServers":{"db":{"command":"pg"}},"hooks":{"Stop":[]}}'],
  ['tabs', '{\n\t"mcpServers": {\n\t\t"db": {"command": "pg"}\n\t},\n\t"hooks": {\n\t}\n}\n'],
  ['CRLF', '{\r\n  "mcpServers": {},\r\n  "model": "opus"\r\n}\r\n'],
  ['comments', '{\n  // mine\n  "mcpServers": { /* none yet */ },\n  "hooks": {\n    "Stop": [] // later\n  } /* end */\n}\n'],
  ['a line comment after the last member', '{\n  "mcpServers": {\n    "db": {"command": "pg"} // read-only\n  }\n}\n'],
  ['byte order mark', '\uFEFF{\n  "a": 1\n}\n'],
  ['empty root', '{}'],
  ['blank file', '\n'],
];

describe('JSON edits keep the rest of the text', () => {
  it.each(LAYOUTS)('%s: adding then removing Cairn gives the text back', (_name, text) => {
    const server = mergeMcpServer(text, 'cairn', entry, 'f');
    readJson(server.text!, 'f');
    expect(removeMcpServer(server.text!, 'cairn', 'f', { text }).text).toBe(text);
    const settings = mergeClaudeHooks(text, hooks, 'f');
    readJson(settings.text!, 'f');
    expect(removeClaudeHooks(settings.text!, 'f', { text }).text).toBe(text);
  });

  it('puts Cairn on the line it goes into when the container is on one line, else on lines of its own at the right depth', () => {
    expect(mergeMcpServer('{ "a": 1, "mcpServers": { "db": {"command": "pg"} } }', 'cairn', { command: 'c', args: ['mcp'] }, 'f').text).toBe(
      '{ "a": 1, "mcpServers": { "db": {"command": "pg"}, "cairn": { "command": "c", "args": ["mcp"] } } }',
    );
    expect(mergeMcpServer('{\n  "mcpServers": {\n    "db": {"command": "pg"} // ro\n  }\n}\n', 'cairn', { command: 'c', args: [] }, 'f').text).toBe(
      '{\n  "mcpServers": {\n    "db": {"command": "pg"}, // ro\n    "cairn": {\n      "command": "c",\n      "args": []\n    }\n  }\n}\n',
    );
  });

  it('updates Cairn where it stands, in its layout', () => {
    const text = '{"mcpServers": {"cairn": {"command": "/old", "args": ["mcp"]}, "db": {}}}';
    expect(mergeMcpServer(text, 'cairn', { command: '/new', args: ['mcp'] }, 'f').text).toBe('{"mcpServers": {"cairn": {"command": "/new", "args": ["mcp"]}, "db": {}}}');
  });

  it('without a record of the file before setup, takes out what Cairn leaves empty', () => {
    const text = '{ "permissions": {}, "hooks": {} }';
    const merged = mergeClaudeHooks(text, hooks, 'f').text!;
    expect(removeClaudeHooks(merged, 'f').text).toBe('{ "permissions": {} }');
    expect(removeClaudeHooks(mergeClaudeHooks(null, hooks, 'f').text!, 'f')).toMatchObject({ text: '', empty: true });
  });

  it('names the line and column of what does not parse', () => {
    expect(() => readJson('{\n  "a": 1,\n}', '/p/.mcp.json')).toThrow('/p/.mcp.json is not valid JSON: line 3, column 1: a comma before a closing bracket, which JSON does not allow.');
    expect(() => readJson('{\n  "a" 1\n}', 'f')).toThrow('f is not valid JSON: line 2, column 7: a colon was expected.');
    expect(() => readJson('[1]', 'f')).toThrow('f must hold a JSON object at the top level');
  });
});
