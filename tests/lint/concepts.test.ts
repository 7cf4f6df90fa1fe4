// The table of docs/architecture.md ("Where each concept lives") against the tree: every folder
// and file it names exists, and every folder of src/main is some concept's home, so a newcomer
// who follows it finds what it says and a new folder cannot be added without a row.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/sandbox';

const SRC = path.join(REPO_ROOT, 'src');

interface Row {
  concept: string;
  homes: string[];
  first: string;
}

function conceptTable(): Row[] {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split('## Where each concept lives')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| concept') && !line.startsWith('| ---'))
    .map((line) => {
      const [concept, home, first] = line.split(' | ').map((cell) => cell.replace(/^\| |\s*\|$/g, ''));
      const code = (cell: string | undefined) => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      return { concept: concept!, homes: code(home).filter((c) => !c.startsWith('cairn ')), first: code(first)[0]! };
    });
}

describe('the concept table of docs/architecture.md', () => {
  const rows = conceptTable();

  it('has a row per concept, each with a home and a file to open first', () => {
    expect(rows.length).toBeGreaterThanOrEqual(15);
    for (const row of rows) {
      expect(row.homes.length, row.concept).toBeGreaterThan(0);
      expect(row.first, row.concept).toBeTruthy();
    }
  });

  it('names only folders and files that exist', () => {
    for (const row of rows) {
      for (const home of row.homes) expect(existsSync(path.join(SRC, home)) && statSync(path.join(SRC, home)).isDirectory(), `${row.concept}: src/${home}`).toBe(true);
      expect(existsSync(path.join(SRC, row.first)), `${row.concept}: src/${row.first}`).toBe(true);
      // The file to open first is in one of the concept's homes.
      expect(row.homes.some((home) => row.first.startsWith(`${home}/`)), `${row.concept}: ${row.first} is in ${row.homes.join(', ')}`).toBe(true);
    }
  });

  it('gives every folder of src/main a concept', () => {
    const homes = new Set(rows.flatMap((r) => r.homes));
    const folders = readdirSync(path.join(SRC, 'main'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `main/${d.name}`);
    expect(folders.filter((f) => !homes.has(f))).toEqual([]);
  });
});
