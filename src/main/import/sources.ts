/**
 * Which files `cairn import --from FORMAT PATH` reads (issue 23), how each is shown, and the scope
 * its entries go to by default. PATH may be a file (read as FORMAT says) or a directory: then the
 * files FORMAT knows in it, where the agent keeps them (listed in KNOWN_FILES), and no others.
 *
 * Default scopes: a file inside a git checkout (a project's CLAUDE.md, AGENTS.md, Cursor rules)
 * holds the project's conventions: project. Claude Code's auto memory
 * (`~/.claude/projects/<checkout>/memory/`) is one checkout's own: workspace. Every other file
 * (the user's `~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md` and memories, Kimchi's stores, a loose
 * Markdown file) is the person's: global. A source that says its scope (Aegis's `scope`, Kimchi's
 * USER.md) keeps it; `--scope` overrides them all.
 *
 * Invariant: the names shown (in evidence, in the report) are relative to the checkout or `~/`,
 * or the file's own name: never another host path.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Scope } from '../../common/memory/constants';
import { isInside } from '../runtime/local/containment';
import { findGitRoot } from '../workspaces/identity';
import { parseAegis, parseKimchi, parseMarkdown, type ParsedFile } from './entries';

export const IMPORT_FORMATS = ['claude', 'codex', 'cursor', 'aegis', 'kimchi', 'markdown'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The largest file read: far above any instruction or memory file an agent reads. */
const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

/** Where each format keeps its files, relative to a directory given as PATH (`*`: any name, one level). */
const KNOWN_FILES: Readonly<Record<ImportFormat, readonly string[]>> = {
  claude: ['CLAUDE.md', 'CLAUDE.local.md', '.claude/CLAUDE.md', '.claude/rules/**/*.md', 'MEMORY.md', '*.md (beside MEMORY.md)', 'memory/*.md'],
  codex: ['AGENTS.md', 'AGENTS.override.md', 'MEMORY.md', 'memory_summary.md', 'memories/MEMORY.md', 'memories/memory_summary.md'],
  cursor: ['.cursorrules', '.cursor/rules/**/*.mdc', '*.mdc'],
  aegis: ['memories.jsonl', '.aegis/memory/memories.jsonl'],
  kimchi: ['MEMORY.md', 'USER.md'],
  markdown: ['*.md'],
};

export class ImportError extends Error {
  override readonly name = 'ImportError';
}

export interface SourceFile {
  /** The host path (never shown). */
  readonly file: string;
  /** For Claude Code's auto memory: the folder its checkout is named by (`<encoded cwd>`). */
  readonly autoMemoryOf?: string;
  /** How the file is named in evidence and reports. */
  readonly shown: string;
  /** The scope its entries go to unless they or --scope say otherwise. */
  readonly scope: Scope;
}

const exists = async (file: string): Promise<boolean> => (await fs.stat(file).catch(() => null))?.isFile() ?? false;

async function mdFiles(dir: string, ext = '.md'): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const name of names.sort()) if (name.endsWith(ext) && (await exists(path.join(dir, name)))) out.push(path.join(dir, name));
  return out;
}

async function tree(dir: string, ext: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // Links are not followed: a rules directory may be a repository's, and a link could lead anywhere.
    if (e.isDirectory()) out.push(...(await tree(path.join(dir, e.name), ext)));
    else if (e.isFile() && e.name.endsWith(ext)) out.push(path.join(dir, e.name));
  }
  return out;
}

/** The files of `format` in directory `dir`. */
async function knownFilesIn(format: ImportFormat, dir: string): Promise<string[]> {
  const at = (...names: string[]) => names.map((n) => path.join(dir, n));
  const present = async (files: string[]) => {
    const out: string[] = [];
    for (const f of files) if (await exists(f)) out.push(f);
    return out;
  };
  switch (format) {
    case 'claude': {
      const files = [...(await present(at('CLAUDE.md', 'CLAUDE.local.md', '.claude/CLAUDE.md'))), ...(await tree(path.join(dir, '.claude', 'rules'), '.md'))];
      // Auto memory: MEMORY.md (the index) and its topic files, here or in memory/.
      if (await exists(path.join(dir, 'MEMORY.md'))) files.push(...(await mdFiles(dir)).filter((f) => !files.includes(f)));
      if (await exists(path.join(dir, 'memory', 'MEMORY.md'))) files.push(...(await mdFiles(path.join(dir, 'memory'))));
      return files;
    }
    case 'codex':
      return present(at('AGENTS.md', 'AGENTS.override.md', 'MEMORY.md', 'memory_summary.md', 'memories/MEMORY.md', 'memories/memory_summary.md'));
    case 'cursor':
      return [...(await present(at('.cursorrules'))), ...(await tree(path.join(dir, '.cursor', 'rules'), '.mdc')), ...(await mdFiles(dir, '.mdc'))];
    case 'aegis':
      return present(at('memories.jsonl', '.aegis/memory/memories.jsonl'));
    case 'kimchi':
      return present(at('MEMORY.md', 'USER.md'));
    case 'markdown':
      return mdFiles(dir);
  }
}

/** The file's name as shown: relative to its checkout, `~/...` under the user's home, else its own name. */
function shownName(file: string, checkout: string | null, userHome: string): string {
  if (checkout) return path.relative(checkout, file).split(path.sep).join('/');
  if (isInside(file, userHome)) return `~/${path.relative(userHome, file).split(path.sep).join('/')}`;
  return path.basename(file);
}

/** The scope of a file's entries by default (see the header). */
function defaultScope(format: ImportFormat, file: string, checkout: string | null, userHome: string): Scope {
  if (format === 'claude' && isInside(file, path.join(userHome, '.claude', 'projects'))) return 'workspace';
  return checkout !== null ? 'project' : 'global';
}

/** The files PATH names for `format`, each with its shown name and default scope. */
export async function sourceFiles(format: ImportFormat, target: string, userHome = os.homedir()): Promise<SourceFile[]> {
  const resolved = path.resolve(target);
  const stat = await fs.stat(resolved).catch(() => null);
  if (!stat) throw new ImportError(`${target} does not exist`);
  let files: string[];
  if (stat.isDirectory()) {
    files = await knownFilesIn(format, resolved);
    if (files.length === 0) throw new ImportError(`${target} holds none of the files ${format} keeps (${KNOWN_FILES[format].join(', ')}); name a file to read it as ${format}`);
  } else if (stat.isFile()) files = [resolved];
  else throw new ImportError(`${target} is not a regular file or a directory`);
  const out: SourceFile[] = [];
  for (const file of files) {
    const checkout = await findGitRoot(path.dirname(file));
    const projects = path.join(userHome, '.claude', 'projects');
    const autoMemoryOf = format === 'claude' && isInside(file, projects) ? path.relative(projects, file).split(path.sep)[0] : undefined;
    out.push({ file, shown: shownName(file, checkout, userHome), scope: defaultScope(format, file, checkout, userHome), ...(autoMemoryOf ? { autoMemoryOf } : {}) });
  }
  return out;
}

/** Reads one source file and splits it into entries as its format says. */
export async function readSource(format: ImportFormat, source: SourceFile): Promise<ParsedFile> {
  const stat = await fs.stat(source.file);
  if (stat.size > MAX_SOURCE_BYTES) throw new ImportError(`${source.shown} is ${stat.size} bytes, more than the ${MAX_SOURCE_BYTES} an import reads`);
  const data = new Uint8Array(await fs.readFile(source.file));
  const name = path.basename(source.file);
  switch (format) {
    case 'aegis':
      return parseAegis(data);
    case 'kimchi':
      return parseKimchi(data, name === 'USER.md');
    case 'cursor':
      return parseMarkdown(data, { descriptionAsContext: name.endsWith('.mdc') });
    default:
      return parseMarkdown(data);
  }
}
