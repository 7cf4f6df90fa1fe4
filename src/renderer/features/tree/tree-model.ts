/**
 * The scope tree as data: the memory list (files of every visible scope) folded into directories,
 * then flattened into the rows the virtualized list draws. Pure functions, so the tree's order,
 * counts and filtering are tested without a DOM.
 *
 * Order: scopes GLOBAL, PROJECT, WORKSPACE; inside each, directories first, then files, each
 * alphabetical (case-insensitive, then by code point so the order is total). Another sort (last
 * used, uses, last written: TreeSort) orders the files within each directory, newest or most first,
 * ties and never-used files by name; directories keep their alphabetical place. Directories exist only
 * as the parents of files (the list holds files). Every directory carries its recursive file count.
 * A directory's children are put in order when its rows are first drawn (orderChildren), not when
 * the tree is built: a large tree starts with its directories closed, and most of its files are
 * then never shown.
 */
import type { z } from 'zod';
import type { memoryFileSchema, scopeStatusSchema } from '../../../common/api/contract';
import { SCOPES, type Scope } from '../../../common/memory/constants';

export type MemoryFile = z.infer<typeof memoryFileSchema>;
export type ScopeStatus = z.infer<typeof scopeStatusSchema>;

export interface DirNode {
  readonly name: string;
  /** Virtual path (`/memories/project/notes`). */
  readonly path: string;
  /** In the tree's order once orderChildren has seen the directory (flattenTree calls it). */
  readonly dirs: DirNode[];
  readonly files: MemoryFile[];
  /** Files at any depth below. */
  count: number;
  /** A folder Cairn cannot read: what it holds is unknown (never shown as empty). */
  unreadable?: boolean;
}

export type Forest = Record<Scope, DirNode>;

export type Row =
  | { kind: 'scope'; id: string; level: 1; scope: Scope; count: number; available: boolean; reason: string | null; expanded: boolean }
  | { kind: 'dir'; id: string; level: number; scope: Scope; path: string; name: string; count: number; expanded: boolean; parentId: string; unreadable?: boolean }
  | { kind: 'file'; id: string; level: number; scope: Scope; path: string; name: string; file: MemoryFile; parentId: string }
  | { kind: 'note'; id: string; level: 2; scope: Scope; text: string; parentId: string }
  /** The scope's recently deleted files (its last row, when there are any). */
  | { kind: 'deleted'; id: string; level: 2; scope: Scope; count: number; parentId: string }
  /** The scope's last consolidation still in place: when, and the history batch its Undo takes back (its first row). */
  | { kind: 'consolidated'; id: string; level: 2; scope: Scope; at: string; batch: string; parentId: string }
  /** A consolidation proposal of the scope waiting for review: when, and its summary ("2 deletions, 1 merge"). */
  | { kind: 'consolidation-waiting'; id: string; level: 2; scope: Scope; at: string; summary: string; parentId: string };

export const SCOPE_LABELS: Record<Scope, string> = { global: 'GLOBAL', project: 'PROJECT', workspace: 'WORKSPACE' };

export function scopeRoot(scope: Scope): string {
  return `/memories/${scope}`;
}

export function scopeRowId(scope: Scope): string {
  return `scope:${scope}`;
}

function compareNames(a: { name: string; lower: string }, b: { name: string; lower: string }): number {
  return a.lower !== b.lower ? (a.lower < b.lower ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Sorts by name, case-insensitive, then by code point; each name is lower-cased once, not per
 * comparison. The list usually arrives in this order already (the listing sorts each directory),
 * so that is checked first, in one pass that allocates nothing.
 */
function sortByName<T>(items: T[], nameOf: (item: T) => string): void {
  if (items.length < 2) return;
  let prevName = nameOf(items[0]!);
  let prevLower = prevName.toLowerCase();
  let ordered = true;
  for (let i = 1; i < items.length && ordered; i++) {
    const name = nameOf(items[i]!);
    const lower = name.toLowerCase();
    ordered = compareNames({ name: prevName, lower: prevLower }, { name, lower }) <= 0;
    prevName = name;
    prevLower = lower;
  }
  if (ordered) return;
  const keyed = items.map((item) => {
    const name = nameOf(item);
    return { item, name, lower: name.toLowerCase() };
  });
  keyed.sort(compareNames);
  for (let i = 0; i < keyed.length; i++) items[i] = keyed[i]!.item;
}

function emptyDir(name: string, path: string): DirNode {
  return { name, path, dirs: [], files: [], count: 0 };
}

/** How the tree orders files within each directory. */
export const TREE_SORTS = ['name', 'used', 'uses', 'written'] as const;
export type TreeSort = (typeof TREE_SORTS)[number];
export const TREE_SORT_LABELS: Record<TreeSort, string> = { name: 'Name', used: 'Last used', uses: 'Uses', written: 'Last written' };

/** A file's sort value (higher first) for a sort other than by name; -1 when it has none (never used, not known). */
function sortValue(file: MemoryFile, sort: Exclude<TreeSort, 'name'>): number {
  if (sort === 'uses') return file.accessCount;
  const at = sort === 'used' ? file.lastAccessedAt : file.lastWriteAt;
  const t = at === null ? NaN : Date.parse(at);
  return Number.isNaN(t) ? -1 : t;
}

/** Orders files (already by name) by `sort`, highest first; a stable sort keeps the name order among ties. */
function sortFiles(files: MemoryFile[], sort: TreeSort): void {
  if (sort === 'name' || files.length < 2) return;
  const keyed = files.map((file) => ({ file, value: sortValue(file, sort) }));
  keyed.sort((a, b) => b.value - a.value);
  for (let i = 0; i < keyed.length; i++) files[i] = keyed[i]!.file;
}

/** Directories of a built forest whose children are not in order yet, and the sort they take. */
const unordered = new WeakMap<DirNode, TreeSort>();

/** Puts `dir`'s own children (not theirs) in the tree's order, once. */
function orderChildren(dir: DirNode): void {
  const sort = unordered.get(dir);
  if (sort === undefined) return;
  unordered.delete(dir);
  sortByName(dir.dirs, (d) => d.name);
  sortByName(dir.files, (f) => baseName(f.path));
  sortFiles(dir.files, sort);
}

/**
 * Folds the list into one directory tree per scope, each directory's files to be put in `sort` order
 * when it is first shown; `unreadable` (virtual paths, ScopeStatus.unreadableFolders) adds the folders Cairn cannot read.
 */
export function buildForest(files: readonly MemoryFile[], sort: TreeSort = 'name', unreadable: readonly string[] = []): Forest {
  const forest = Object.fromEntries(SCOPES.map((s) => [s, emptyDir(SCOPE_LABELS[s], scopeRoot(s))])) as Forest;
  const dirIndex = new Map<string, DirNode>();
  for (const s of SCOPES) dirIndex.set(forest[s].path, forest[s]);
  for (const folder of unreadable) {
    const root = SCOPES.map((s) => forest[s]).find((r) => folder.startsWith(`${r.path}/`));
    if (!root) continue;
    let dir = root;
    for (const name of folder.slice(root.path.length + 1).split('/')) {
      const p = `${dir.path}/${name}`;
      let next = dirIndex.get(p);
      if (!next) {
        next = emptyDir(name, p);
        dirIndex.set(p, next);
        dir.dirs.push(next);
      }
      dir = next;
    }
    dir.unreadable = true;
  }
  // Each directory's chain up to its scope root, counted once per file: most files share a
  // directory already seen, found by one lookup of the file's parent path (no split, no joins).
  const chains = new Map<string, DirNode[]>();
  for (const s of SCOPES) chains.set(forest[s].path, [forest[s]]);
  const chainOf = (root: DirNode, dirPath: string): DirNode[] => {
    const known = chains.get(dirPath);
    if (known) return known;
    const cut = dirPath.lastIndexOf('/');
    const parentChain = dirPath.length > root.path.length ? chainOf(root, dirPath.slice(0, cut)) : [root];
    const parent = parentChain[parentChain.length - 1]!;
    let dir = dirIndex.get(dirPath);
    if (!dir) {
      dir = emptyDir(dirPath.slice(cut + 1), dirPath);
      dirIndex.set(dirPath, dir);
      parent.dirs.push(dir);
    }
    const chain = [...parentChain, dir];
    chains.set(dirPath, chain);
    return chain;
  };
  for (const file of files) {
    const root = forest[file.scope];
    const chain = chainOf(root, file.path.slice(0, Math.max(root.path.length, file.path.lastIndexOf('/'))));
    for (const dir of chain) dir.count++;
    chain[chain.length - 1]!.files.push(file);
  }
  for (const dir of dirIndex.values()) unordered.set(dir, sort);
  return forest;
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A filter's terms: lower-case words, every one of which must appear in path or description. */
export function filterTerms(filter: string): string[] {
  return filter.toLowerCase().split(/\s+/).filter((t) => t.length > 0);
}

export function fileMatches(file: MemoryFile, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const hay = `${file.path}\n${file.description ?? ''}`.toLowerCase();
  return terms.every((t) => hay.includes(t));
}

/** Files matching the filter below a directory (all of them without a filter). */
function matchCount(dir: DirNode, terms: readonly string[]): number {
  if (terms.length === 0) return dir.count;
  let n = 0;
  for (const f of dir.files) if (fileMatches(f, terms)) n++;
  for (const d of dir.dirs) n += matchCount(d, terms);
  return n;
}

/**
 * A tree of more files than this starts with its directories closed (scopes open, their top-level
 * files and directories in view); a smaller one starts fully open. 1000 files fully open are
 * thousands of rows to scroll through to reach the next scope.
 */
export const OPEN_TREE_MAX_FILES = 200;

/** Which scopes and directories are open: the person's own choices, else the default. */
export interface OpenState {
  /** Ids the person closed (scopes and directories). */
  readonly collapsed: ReadonlySet<string>;
  /** Ids of directories the person opened (they stay open when directories are closed by default). */
  readonly expanded: ReadonlySet<string>;
  /** Whether directories are open unless closed (scopes always are). */
  readonly dirsOpen: boolean;
}

/** How a tree of `fileCount` files starts: scopes open; directories too unless it is large. */
export function initialOpenState(fileCount: number): OpenState {
  return { collapsed: new Set(), expanded: new Set(), dirsOpen: fileCount <= OPEN_TREE_MAX_FILES };
}

/** Every directory closed ("Collapse all"; scopes stay open) or every directory and scope open ("Expand all"). */
export function allOpenState(open: boolean): OpenState {
  return { collapsed: new Set(), expanded: new Set(), dirsOpen: open };
}

function isOpen(id: string, kind: 'scope' | 'dir', state: Partial<OpenState>): boolean {
  if (kind === 'dir' && state.expanded?.has(id)) return true;
  if (state.collapsed?.has(id)) return false;
  return kind === 'scope' || state.dirsOpen !== false;
}

/** `state` with one scope or directory opened, closed, or (without `open`) toggled. */
export function withOpen(state: OpenState, id: string, kind: 'scope' | 'dir', open?: boolean): OpenState {
  const next = open ?? !isOpen(id, kind, state);
  const collapsed = new Set(state.collapsed);
  const expanded = new Set(state.expanded);
  if (next) {
    collapsed.delete(id);
    if (kind === 'dir') expanded.add(id);
  } else {
    collapsed.add(id);
    expanded.delete(id);
  }
  return { ...state, collapsed, expanded };
}

export interface FlattenOptions extends Partial<Pick<OpenState, 'expanded' | 'dirsOpen'>> {
  /** Ids of collapsed scopes and directories (everything else is expanded, unless `dirsOpen` is false). */
  readonly collapsed: ReadonlySet<string>;
  readonly filter?: string;
  /** Which scopes to show (default all three), in this order. */
  readonly scopes?: readonly Scope[];
  /** How many files of each scope were deleted recently (a "Recently deleted" row ends the scope; not while filtering). */
  readonly deleted?: Partial<Record<Scope, number>>;
  /** Each scope's last consolidation still in place (a "Last consolidated" row starts the scope; not while filtering). */
  readonly consolidated?: Partial<Record<Scope, { readonly at: string; readonly batch: string }>>;
  /** Each scope's consolidation proposal waiting for review (a row starts the scope; not while filtering). */
  readonly waiting?: Partial<Record<Scope, { readonly at: string; readonly summary: string }>>;
}

/** The visible rows, top to bottom. With a filter, only matching files and their directories show, expanded. */
export function flattenTree(forest: Forest, statuses: readonly ScopeStatus[], options: FlattenOptions): Row[] {
  const terms = filterTerms(options.filter ?? '');
  const rows: Row[] = [];
  for (const scope of options.scopes ?? SCOPES) {
    const status = statuses.find((s) => s.scope === scope) ?? { scope, available: false, reason: 'unknown' };
    const root = forest[scope];
    const id = scopeRowId(scope);
    const count = matchCount(root, terms);
    const expanded = isOpen(id, 'scope', options);
    rows.push({ kind: 'scope', id, level: 1, scope, count, available: status.available, reason: status.reason, expanded });
    if (!expanded) continue;
    if (!status.available) {
      rows.push({ kind: 'note', id: `${id}:note`, level: 2, scope, text: status.reason ?? 'Unavailable.', parentId: id });
      continue;
    }
    const waiting = options.waiting?.[scope];
    if (waiting && terms.length === 0) rows.push({ kind: 'consolidation-waiting', id: `${id}:consolidation-waiting`, level: 2, scope, at: waiting.at, summary: waiting.summary, parentId: id });
    const swept = options.consolidated?.[scope];
    if (swept && terms.length === 0) rows.push({ kind: 'consolidated', id: `${id}:consolidated`, level: 2, scope, at: swept.at, batch: swept.batch, parentId: id });
    if (count === 0 && (terms.length > 0 || !holdsUnreadable(root))) rows.push({ kind: 'note', id: `${id}:note`, level: 2, scope, text: terms.length > 0 ? 'Nothing matches the filter.' : 'No memories yet.', parentId: id });
    else pushDir(rows, root, scope, id, 2, terms, options);
    const deleted = options.deleted?.[scope] ?? 0;
    if (deleted > 0 && terms.length === 0) rows.push({ kind: 'deleted', id: `${id}:deleted`, level: 2, scope, count: deleted, parentId: id });
  }
  return rows;
}

function pushDir(rows: Row[], dir: DirNode, scope: Scope, parentId: string, level: number, terms: readonly string[], open: FlattenOptions): void {
  orderChildren(dir);
  for (const d of dir.dirs) {
    const count = matchCount(d, terms);
    // A folder Cairn cannot read shows (unfiltered) whatever it holds: never as an absent or empty one.
    if (count === 0 && (terms.length > 0 || !holdsUnreadable(d))) continue;
    const id = d.path;
    // A filter shows every match: directories open while it is on.
    const expanded = terms.length > 0 || isOpen(id, 'dir', open);
    rows.push({ kind: 'dir', id, level, scope, path: d.path, name: d.name, count, expanded, parentId, ...(d.unreadable ? { unreadable: true } : {}) });
    if (expanded) pushDir(rows, d, scope, id, level + 1, terms, open);
  }
  for (const f of dir.files) {
    if (!fileMatches(f, terms)) continue;
    rows.push({ kind: 'file', id: f.path, level, scope, path: f.path, name: baseName(f.path), file: f, parentId });
  }
}

/** Whether `dir` is, or holds at any depth, a folder Cairn cannot read. */
function holdsUnreadable(dir: DirNode): boolean {
  return dir.unreadable === true || dir.dirs.some(holdsUnreadable);
}

/** Files at or below a virtual path (for "this deletes N files"). */
export function filesUnder(files: readonly MemoryFile[], path: string): number {
  let n = 0;
  for (const f of files) if (f.path === path || f.path.startsWith(`${path}/`)) n++;
  return n;
}

/**
 * Where the focus goes when a row is deleted: its next sibling, else the rows above it, nearest
 * first. A list of ids, because which survive is known only once the list is read again (a
 * directory left without files disappears with its last one): the first one still there wins.
 */
export function focusAfterDelete(rows: readonly Row[], id: string): string[] {
  const i = rows.findIndex((r) => r.id === id);
  const row = rows[i];
  if (!row || row.kind === 'scope') return [];
  let j = i + 1;
  // A directory's rows go with it.
  if (row.kind === 'dir') while (j < rows.length && rows[j]!.level > row.level) j++;
  const next = rows[j];
  const candidates: string[] = [];
  if (next && (next.kind === 'file' || next.kind === 'dir') && next.parentId === row.parentId) candidates.push(next.id);
  for (let k = i - 1; k >= 0; k--) candidates.push(rows[k]!.id);
  return candidates;
}
