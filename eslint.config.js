// Lint rules, including the layer boundaries of docs/architecture.md: src/common is pure and isomorphic (no
// `node:` builtins, nothing from main or renderer); src/renderer never reaches into src/main.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// Bare builtin names; `node:` specifiers are caught by the pattern below.
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('node:'));

/**
 * The inner layers of src/main (docs/architecture.md, "Layers"): a relative import that climbs out
 * of a folder into one of `folders` (a sibling under src/main, or src/renderer and src/preload).
 */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const innerRule = (folders, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ regex: into(folders), message }] }],
});

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'bench/results/**', 'tests/fixtures/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/common/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'src/common is isomorphic: no Node builtins.' })),
          patterns: [
            { group: ['node:*'], message: 'src/common is isomorphic: no Node builtins.' },
            { group: ['**/main/**', '**/main', '**/renderer/**', '**/renderer', '**/preload/**'], message: 'src/common imports nothing from main, renderer or preload.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**'],
    ignores: ['src/renderer/**/*.test.ts', 'src/renderer/**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'The renderer has no Node APIs; talk to main through the oRPC client.' })),
          patterns: [
            { group: ['node:*'], message: 'The renderer has no Node APIs.' },
            { group: ['**/main/**', '**/main', '**/preload/**'], message: 'The renderer never imports src/main; use the oRPC client.' },
          ],
        },
      ],
    },
  },
  {
    // The runtime reaches disks and hosts, and knows nothing of what is stored there or who asks.
    files: ['src/main/runtime/**'],
    rules: innerRule(
      ['memory', 'journal', 'api', 'mcp', 'cli', 'electron', 'workspaces', 'host', 'setup', 'outside', 'renderer', 'preload'],
      'src/main/runtime imports only src/common (and Node and its packages).',
    ),
  },
  {
    // The rule of files from outside (links, FIFOs, devices): what may be read of a path another
    // program chose. Built on the runtime's containment only; its readers are built on it.
    files: ['src/main/outside/**'],
    rules: innerRule(
      ['memory', 'history', 'journal', 'api', 'mcp', 'cli', 'electron', 'workspaces', 'host', 'setup', 'harvest', 'sweep', 'import', 'agent-files', 'context', 'renderer', 'preload'],
      'src/main/outside imports only src/common and the runtime (and Node).',
    ),
  },
  {
    // The version history stores what it is told; it knows nothing of who tells it. Its files are
    // written by the runtime's one write of Cairn's own files.
    files: ['src/main/history/**'],
    rules: innerRule(
      ['memory', 'journal', 'api', 'mcp', 'cli', 'electron', 'workspaces', 'host', 'setup', 'renderer', 'preload'],
      'src/main/history imports only src/common and the runtime (and Node and its packages).',
    ),
  },
  {
    // Memory hands its change events to whatever sink it is given; it never reaches its callers.
    files: ['src/main/memory/**'],
    rules: innerRule(['journal', 'api', 'mcp', 'cli', 'electron', 'host', 'harvest', 'sweep', 'renderer', 'preload'], 'src/main/memory imports none of journal, api, mcp, cli, harvest, sweep (it is what they are built on).'),
  },
  {
    // The harvest reads agents' transcripts and proposes; memory is changed only through MemoryService.
    files: ['src/main/harvest/**'],
    rules: innerRule(['journal', 'api', 'mcp', 'cli', 'electron', 'host', 'renderer', 'preload'], 'src/main/harvest imports none of journal, api, mcp, cli, electron, host (they are built on it).'),
  },
  {
    // Consolidation proposes from memory, usage and the history, and writes only through
    // MemoryService; the hosts (cli, api) are built on it. It may use the harvest's extractors.
    files: ['src/main/sweep/**'],
    rules: innerRule(['journal', 'api', 'mcp', 'cli', 'electron', 'host', 'renderer', 'preload'], 'src/main/sweep imports none of journal, api, mcp, cli, electron, host (they are built on it).'),
  },
  {
    // Other agents' files (issue 23) are read and saved for a person; memory is only read
    // (through MemoryService) and proposals go to the inbox. The hosts are built on it.
    files: ['src/main/agent-files/**'],
    rules: innerRule(['journal', 'api', 'mcp', 'cli', 'electron', 'host', 'renderer', 'preload'], 'src/main/agent-files imports none of journal, api, mcp, cli, electron, host (they are built on it).'),
  },
  {
    // Import and export (issue 23): other memory into the inbox, memory to a tar and back; memory
    // is only read, proposals go to the inbox. The CLI is built on it.
    files: ['src/main/import/**'],
    rules: innerRule(['journal', 'api', 'mcp', 'cli', 'electron', 'host', 'renderer', 'preload'], 'src/main/import imports none of journal, api, mcp, cli, electron, host (they are built on it).'),
  },
  {
    // What agents get without a tool call, answered by the hook's process or a running host
    // (issue 21): built on memory, workspaces and the runtime; the hosts and the CLI start it.
    files: ['src/main/context/**'],
    rules: innerRule(['journal', 'api', 'mcp', 'cli', 'electron', 'host', 'renderer', 'preload'], 'src/main/context imports none of journal, api, mcp, cli, electron, host (they are built on it).'),
  },
  {
    files: ['src/main/api/**'],
    rules: innerRule(['mcp', 'cli', 'electron'], 'src/main/api never imports mcp (a host hands it the MCP endpoint), cli or electron.'),
  },
  {
    files: ['src/main/mcp/**'],
    rules: innerRule(['api', 'cli', 'electron'], 'src/main/mcp never imports api, cli or electron.'),
  },
  {
    // Component tests run in Node with a real backend (tests/support wires it): they may check the
    // disk, but still never import src/main themselves.
    files: ['src/renderer/**/*.test.ts', 'src/renderer/**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/main/**', '**/main', '**/preload/**'], message: 'Renderer tests reach the backend through tests/support, not src/main.' }] },
      ],
    },
  },
);
