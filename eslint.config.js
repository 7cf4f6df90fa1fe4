// Lint rules, including the layers of docs/architecture.md ("Layers"): which folder of src may import
// which (the table below, judged by lint/layers.js), and no Node builtins in src/common or src/renderer.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './lint/layers.js';

// Bare builtin names; `node:` specifiers are caught by the pattern below.
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('node:'));

/**
 * For each folder of src/main, the folders of src/main it may import: everything below it in the
 * graph of docs/architecture.md ("Layers"), whose table says the same (tests/lint/layering.test.ts
 * checks that the graph, that table and this one agree). src/common is open to all. A folder with
 * no row imports none of its siblings; a new folder gets a row when someone decides where it sits.
 */
const mainImports = {
  runtime: [],
  outside: ['runtime'],
  history: ['runtime'],
  memory: ['runtime', 'history'],
  workspaces: ['runtime', 'history', 'memory'],
  journal: ['runtime', 'history', 'memory', 'workspaces'],
  context: ['runtime', 'history', 'memory', 'workspaces'],
  // The inbox: what waits for a person (proposals, held changes) and their review, written through memory.
  inbox: ['runtime', 'history', 'memory'],
  // workspaces: the harvest finds a session's workspace (registry, session) for what it reads.
  harvest: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'inbox'],
  consolidation: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'inbox', 'harvest'],
  import: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'inbox', 'harvest'],
  // context: a file is compared and searched with the words the index ranks by.
  'agent-files': ['runtime', 'outside', 'history', 'memory', 'workspaces', 'context', 'inbox', 'harvest', 'import'],
  // Agents' config files: written for a workspace's identity, on the runtime's atomic write.
  setup: ['runtime', 'history', 'memory', 'workspaces'],
  // What agents did, for a person: agents seen per workspace, the Activity view's rows (versions and inbox items).
  activity: ['runtime', 'history', 'memory', 'inbox'],
  // Sync through the person's git remote: memory written through the service, incoming held in the inbox.
  sync: ['runtime', 'history', 'memory', 'workspaces', 'inbox'],
  api: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'journal', 'context', 'inbox', 'harvest', 'consolidation', 'import', 'agent-files', 'setup', 'activity'],
  mcp: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'journal', 'context', 'inbox', 'harvest', 'consolidation', 'activity'],
  host: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'journal', 'context', 'inbox', 'harvest', 'consolidation', 'import', 'agent-files', 'setup', 'activity', 'sync', 'api', 'mcp'],
  cli: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'journal', 'context', 'inbox', 'harvest', 'consolidation', 'import', 'agent-files', 'setup', 'activity', 'sync', 'api', 'mcp', 'host'],
  electron: ['runtime', 'outside', 'history', 'memory', 'workspaces', 'journal', 'context', 'inbox', 'harvest', 'consolidation', 'import', 'agent-files', 'setup', 'activity', 'sync', 'api', 'mcp', 'host'],
};

/** The whole table, by folder under src: the outer layers import only src/common (open to all). */
const layers = {
  common: [],
  preload: [],
  renderer: [],
  ...Object.fromEntries(Object.entries(mainImports).map(([folder, imports]) => [`main/${folder}`, imports.map((f) => `main/${f}`)])),
};
const layersRule = (table) => ({ 'cairn/layers': ['error', { layers: table, open: ['common'] }] });

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'bench/results/**', 'tests/fixtures/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
      // An error is dropped only on purpose, and then the catch says why in a comment (which
      // no-empty accepts as the block's content): a bare `catch {}` hides failures.
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    files: ['src/common/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'src/common is isomorphic: no Node builtins.' })),
          patterns: [{ group: ['node:*'], message: 'src/common is isomorphic: no Node builtins.' }],
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
          patterns: [{ group: ['node:*'], message: 'The renderer has no Node APIs.' }],
        },
      ],
    },
  },
  {
    files: ['src/**'],
    plugins: { cairn: layersPlugin },
    rules: layersRule(layers),
  },
  {
    // A test of the MCP server over a real home opens it as a host does (host/home-services.ts).
    files: ['src/main/mcp/mcp-early.test.ts'],
    rules: layersRule({ ...layers, 'main/mcp': [...layers['main/mcp'], 'main/host'] }),
  },
);
