/**
 * Which files `cairn import --from FORMAT PATH` reads, how each is shown, and the scope
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
 * Links: what PATH names is taken as it is (the person named it); below it, every file goes
 * through the rule of files from outside (outside/outside-file.ts): a link, the file's name or a
 * folder on its way, is followed only to a file of the format's kind (by its name: `.md`, `.mdc`,
 * `.cursorrules`, `.jsonl`) inside the checkout PATH is in (else inside the user's home), and never
 * into `.git`; only regular files are read (O_NOFOLLOW | O_NONBLOCK, checked on the descriptor).
 * A file not read is skipped and reported with why, and where its link leads.
 *
 * Invariant: the names shown (in evidence, in the report) are relative to the checkout or `~/`,
 * or the file's own name: never another host path, but for where a skipped link leads outside.
 */
import { CairnError } from '../../common/errors';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Scope } from '../../common/memory/constants';
import { follow, readRegularSync, shownPath, type LinkRule } from '../outside/outside-file';
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

export class ImportError extends CairnError {
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

/** A source found on disk: where it is read, by the rule of links (the same as `file` unless a link the rule follows leads there). */
export interface FoundSource extends SourceFile {
  readonly real: string;
}

/** Whether something is at the name (the rule decides later whether it is read): a link, a FIFO and a folder are reported, not hidden. */
const exists = async (file: string): Promise<boolean> => (await fs.lstat(file).catch(() => null)) !== null;

/** A file of the format's kind, by its name: what a link found in an import may lead to. */
const SAME_KIND: Readonly<Record<ImportFormat, (name: string) => boolean>> = {
  claude: (n) => n.endsWith('.md'),
  codex: (n) => n.endsWith('.md'),
  cursor: (n) => n === '.cursorrules' || n.endsWith('.mdc'),
  aegis: (n) => n.endsWith('.jsonl'),
  kimchi: (n) => n.endsWith('.md'),
  markdown: (n) => n.endsWith('.md'),
};

/** A file an import found and did not read, with why (and where it leads, when it is a link). */
export interface SkippedSource {
  readonly shown: string;
  readonly reason: string;
  /** Where the link leads, as shown (relative to the checkout, `~/...`, else the path); null when it is no link. */
  readonly linkTo: string | null;
}

async function mdFiles(dir: string, ext = '.md'): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const name of names.sort()) if (name.endsWith(ext) && (await isFileOrLink(path.join(dir, name)))) out.push(path.join(dir, name));
  return out;
}

/** A name that may hold a file: anything but a real folder (a link is judged by the rule). */
async function isFileOrLink(file: string): Promise<boolean> {
  const st = await fs.lstat(file).catch(() => null);
  return st !== null && !st.isDirectory();
}

async function tree(dir: string, ext: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // Links are not followed: a rules directory may be a repository's, and a link could lead anywhere.
    if (e.isDirectory()) out.push(...(await tree(path.join(dir, e.name), ext)));
    else if (e.name.endsWith(ext)) out.push(path.join(dir, e.name));
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

/** The files PATH names for `format`, each with its shown name and default scope, and those skipped with why. */
export async function sourceFiles(format: ImportFormat, target: string, userHome = os.homedir()): Promise<{ files: FoundSource[]; skipped: SkippedSource[] }> {
  const resolved = path.resolve(target);
  const stat = await fs.stat(resolved).catch(() => null);
  if (!stat && !(await fs.lstat(resolved).catch(() => null))) throw new ImportError(`${target} does not exist`);
  let found: string[];
  let start: string;
  if (stat?.isDirectory()) {
    found = await knownFilesIn(format, resolved);
    if (found.length === 0) throw new ImportError(`${target} holds none of the files ${format} keeps (${KNOWN_FILES[format].join(', ')}); name a file to read it as ${format}`);
    start = resolved;
  } else {
    // A file, or something else at the name (the rule says what it is): judged from its folder.
    found = [resolved];
    start = path.dirname(resolved);
  }
  const startReal = await fs.realpath(start);
  const checkoutReal = await realOrNull(await findGitRoot(startReal));
  const homeReal = (await realOrNull(userHome)) ?? path.resolve(userHome);
  const rule: LinkRule = {
    within: checkoutReal ? [{ real: checkoutReal, where: 'the checkout' }] : [{ real: homeReal, where: 'your home folder' }],
    sameKind: (real) => SAME_KIND[format](path.basename(real)),
    kindName: `a file ${format === 'markdown' ? 'of Markdown' : `${format} keeps`}`,
  };
  const shownTarget = (p: string) => shownPath(p, [...(checkoutReal ? [{ real: checkoutReal, prefix: '' }] : []), { real: homeReal, prefix: '~/' }]);
  const files: FoundSource[] = [];
  const skipped: SkippedSource[] = [];
  for (const file of found) {
    const checkout = await findGitRoot(path.dirname(file));
    const shown = shownName(file, checkout, userHome);
    const followed = follow(startReal, path.relative(start, file).split(path.sep), rule);
    if (followed.status === 'absent') continue;
    if (followed.status === 'refused') {
      skipped.push({ shown, reason: followed.why, linkTo: followed.linkTo === null ? null : shownTarget(followed.linkTo) });
      continue;
    }
    const projects = path.join(userHome, '.claude', 'projects');
    const autoMemoryOf = format === 'claude' && isInside(file, projects) ? path.relative(projects, file).split(path.sep)[0] : undefined;
    files.push({ file, real: followed.real, shown, scope: defaultScope(format, file, checkout, userHome), ...(autoMemoryOf ? { autoMemoryOf } : {}) });
  }
  return { files, skipped };
}

async function realOrNull(dir: string | null): Promise<string | null> {
  return dir === null ? null : fs.realpath(dir).catch(() => null);
}

/** Reads one source file and splits it into entries as its format says; an ImportError says why it cannot be (for a person: the end of "<name> cannot be read: ..."). */
export async function readSource(format: ImportFormat, source: FoundSource): Promise<ParsedFile> {
  const read = readRegularSync(source.real, { maxBytes: MAX_SOURCE_BYTES });
  if ('refused' in read) throw new ImportError(read.refused);
  const data = new Uint8Array(read.bytes.buffer, read.bytes.byteOffset, read.bytes.length);
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
