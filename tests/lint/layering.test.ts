// The layers of docs/architecture.md ("Layers"), checked with the project's own ESLint config and
// files that exist only in memory (lintText with a path under src/, nothing written there): every
// folder of src/main importing every other folder passes exactly where its row allows; a folder
// with no row imports no sibling; the docs' table, the graph above it and eslint.config.js's table
// say the same; and the outer layers (src/common, src/renderer, src/preload) with their Node rule.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/sandbox';

const eslint = new ESLint({ cwd: REPO_ROOT });
const LAYER_RULE = 'cairn/layers';

async function lint(file: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  const fatal = result!.messages.filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return result!.messages;
}

async function layerErrors(file: string, code: string): Promise<string[]> {
  return (await lint(file, code)).filter((m) => m.ruleId === LAYER_RULE).map((m) => m.message);
}

const importing = (...sources: string[]) =>
  `${sources.map((source, i) => `import * as m${i} from '${source}';`).join('\n')}\nexport const all = [${sources.map((_, i) => `m${i}`).join(', ')}];\n`;

const mainFolders = fs
  .readdirSync(path.join(REPO_ROOT, 'src/main'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

type Table = Record<string, string[]>;
const sortedTable = (table: Table): Table =>
  Object.fromEntries(
    Object.keys(table)
      .sort()
      .map((folder) => [folder, [...table[folder]!].sort()]),
  );

/** The "Layers" section of docs/architecture.md: its table, and the graph's arrows followed to the end. */
function readDocs(): { table: Table; graphClosure: Table } {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));

  const table: Table = {};
  for (const [, folder, imports] of section.matchAll(/^\| `([a-z-]+)` \| ([^|]+) \|$/gm)) {
    table[folder!] = imports!.trim() === 'nothing' ? [] : imports!.split(',').map((f) => f.trim());
  }

  const graphStart = section.indexOf('```\n', section.indexOf('Dependencies point one way')) + 4;
  const graph = section.slice(graphStart, section.indexOf('```', graphStart));
  const direct = new Map<string, Set<string>>();
  for (const line of graph.trim().split('\n')) {
    const steps = line.split('<-').map((step) => step.split(',').map((f) => f.trim()));
    for (let i = 0; i + 1 < steps.length; i++) {
      for (const importer of steps[i + 1]!) {
        for (const imported of steps[i]!) direct.set(importer, (direct.get(importer) ?? new Set()).add(imported));
        if (!direct.has(importer)) direct.set(importer, new Set());
      }
      for (const imported of steps[i]!) if (!direct.has(imported)) direct.set(imported, new Set());
    }
  }
  const below = (folder: string, seen = new Set<string>()): Set<string> => {
    for (const next of direct.get(folder) ?? []) if (!seen.has(next)) below(next, seen.add(next));
    return seen;
  };
  const graphClosure = Object.fromEntries([...direct.keys()].map((folder) => [folder, [...below(folder)]]));
  return { table: sortedTable(table), graphClosure: sortedTable(graphClosure) };
}

const docs = readDocs();

describe('the layers of src', () => {
  let configTable: Table;

  beforeAll(async () => {
    const config = await eslint.calculateConfigForFile(path.join(REPO_ROOT, 'src/main/memory/x.ts'));
    const [, options] = config.rules[LAYER_RULE] as [unknown, { layers: Table; open: string[] }];
    expect(options.open).toEqual(['common']);
    configTable = options.layers;
  });

  it("has a row for every folder of src/main, and the docs' table and graph are eslint.config.js's", () => {
    const mainRows = Object.fromEntries(
      Object.entries(configTable)
        .filter(([layer]) => layer.startsWith('main/'))
        .map(([layer, imports]) => [layer.slice('main/'.length), imports.map((f) => f.slice('main/'.length))]),
    );
    expect(Object.keys(mainRows).sort()).toEqual(mainFolders);
    expect(docs.table).toEqual(sortedTable(mainRows));
    expect(docs.graphClosure).toEqual(docs.table);
    expect(sortedTable(configTable)).toMatchObject({ common: [], preload: [], renderer: [] });
  });

  it.each(mainFolders)('src/main/%s imports exactly the folders its row in the docs lists', async (folder) => {
    const allowed = new Set((docs.table[folder] ?? []).map((f) => `main/${f}`));
    const others = [...mainFolders.filter((f) => f !== folder).map((f) => `main/${f}`), 'renderer', 'preload', 'common'];
    // Two levels down, so the answer depends on where the import lands, not on how it is spelled.
    const file = `src/main/${folder}/layering-probe/x.ts`;
    const messages = (await lint(file, importing(...others.map((layer) => `../../../${layer}/probe`)))).filter((m) => m.ruleId === LAYER_RULE);

    const refused = messages.map((m) => others[m.line - 1]);
    const expected = others.filter((layer) => layer !== 'common' && !allowed.has(layer));
    expect(refused).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.message).toMatch(new RegExp(`^src/main/${folder} may not import src/${others[m.line - 1]} \\(the layers of docs/architecture.md`));
  });

  it('refuses every sibling to a folder that is in no row, and allows it src/common and itself', async () => {
    expect(configTable['main/brand-new']).toBeUndefined();
    const errors = await layerErrors('src/main/brand-new/x.ts', importing('../memory/memory-service', '../runtime/runtime'));
    expect(errors).toEqual([
      'src/main/brand-new has no row in the layer table (eslint.config.js), so it may import only src/common until one says what more it may.',
      'src/main/brand-new has no row in the layer table (eslint.config.js), so it may import only src/common until one says what more it may.',
    ]);
    expect(await layerErrors('src/main/brand-new/deep/x.ts', importing('../../../common/memory/constants', '../own', './own'))).toEqual([]);
  });

  it('judges re-exports, dynamic imports, type imports and import-require like imports', async () => {
    const code = [
      "export * from '../memory/memory-service';",
      "export { MemoryService } from '../memory/memory-service';",
      "import type { Journal } from '../journal/journal';",
      "import registry = require('../workspaces/registry');",
      "export const later = () => import('../harvest/harvest-jobs');",
      'export type J = Journal;',
      'export const r = registry;',
    ].join('\n');
    const errors = await layerErrors('src/main/runtime/x.ts', code);
    expect(errors.map((e) => e.split(' (')[0])).toEqual([
      'src/main/runtime may not import src/main/memory',
      'src/main/runtime may not import src/main/memory',
      'src/main/runtime may not import src/main/journal',
      'src/main/runtime may not import src/main/workspaces',
      'src/main/runtime may not import src/main/harvest',
    ]);
    expect(errors[0]).toMatch(/it may import only src\/common\.$/);
  });

  it('lets a folder import itself at any depth, and what lies outside src', async () => {
    expect(await layerErrors('src/main/runtime/ssh/x.ts', importing('../local-lock', '../local/atomic-write', './ssh-runtime'))).toEqual([]);
    expect(await layerErrors('src/main/harvest/extractors/x.ts', importing('../candidate', '../../../../tests/support/sandbox'))).toEqual([]);
    expect(await layerErrors('src/main/memory/x.test.ts', importing('../../../tests/support/sandbox', '../history/history-store'))).toEqual([]);
  });

  it('lets only the one MCP test that drives a real home import host', async () => {
    expect(await layerErrors('src/main/mcp/mcp-early.test.ts', importing('../host/home-services'))).toEqual([]);
    const errors = await layerErrors('src/main/mcp/other.test.ts', importing('../host/home-services'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^src\/main\/mcp may not import src\/main\/host /);
  });

  it.each([
    ['src/common/memory/x.ts', '../../main/memory/memory-service', /^src\/common may not import src\/main\/memory .*: it may import only nothing of src\.$/],
    ['src/common/x.ts', '../renderer/main', /^src\/common may not import src\/renderer /],
    ['src/common/x.ts', '../preload/index', /^src\/common may not import src\/preload /],
    ['src/renderer/x.ts', '../main/memory/memory-service', /^src\/renderer may not import src\/main\/memory .*only src\/common\.$/],
    ['src/renderer/features/x.test.tsx', '../../main/memory/memory-service', /^src\/renderer may not import src\/main\/memory /],
    ['src/renderer/x.ts', '../preload/index', /^src\/renderer may not import src\/preload /],
    ['src/preload/x.ts', '../main/api/router', /^src\/preload may not import src\/main\/api /],
    ['src/main/memory/x.ts', '../../renderer/main', /^src\/main\/memory may not import src\/renderer /],
  ])('%s may not import %s', async (file, source, message) => {
    const errors = await layerErrors(file, importing(source));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    ['src/renderer/x.ts', '../common/memory/constants'],
    ['src/preload/x.ts', '../common/api/wire'],
    ['src/common/memory/x.ts', '../api/contract'],
  ])('%s may import %s', async (file, source) => {
    expect(await layerErrors(file, importing(source))).toEqual([]);
  });

  it.each([
    ['src/common/memory/x.ts', "import * as fs from 'node:fs';\nexport const a = fs;\n", /no Node builtins/],
    ['src/common/memory/x.ts', "import * as path from 'path';\nexport const a = path;\n", /no Node builtins/],
    ['src/renderer/x.ts', "import { readFile } from 'node:fs/promises';\nexport const a = readFile;\n", /no Node APIs/],
  ])('%s may not use Node builtins', async (file, code, message) => {
    const errors = (await lint(file, code)).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it('lets src/main and the renderer\'s tests use Node builtins', async () => {
    const code = "import * as fs from 'node:fs';\nexport const a = fs;\n";
    expect(await lint('src/main/memory/x.ts', code)).toEqual([]);
    expect(await lint('src/renderer/features/x.test.tsx', code)).toEqual([]);
  });
});
