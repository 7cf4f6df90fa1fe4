/**
 * Discovery of other agents' files: for a workspace, the files of the catalogue
 * (catalogue.ts) that exist under the user's home and in the checkout, and the resolution of an
 * id (a display path) back to its place. An id names a file only when it matches a catalogue entry
 * after its segments pass the path rules' name check (common/memory/paths.ts isSafeName), so an id
 * can never reach anything else.
 *
 * Invariants: only the catalogue's directories are read, never a walk of the checkout; a recursive
 * pattern walks real directories only (a linked directory below a rules folder is not entered, so a
 * link loop lists nothing twice), never `.git`, at most MAX_PATTERN_DEPTH levels and
 * MAX_FILES_PER_PATTERN files (the lexicographically first). The user's home is injected (tests
 * never see the real ~); the agents' own overrides of their folders ($CLAUDE_CONFIG_DIR,
 * $CODEX_HOME) are not followed: ids are paths below the home. An SSH workspace's checkout is a
 * RemoteBase (remote-checkout.ts): the same patterns are walked on its host by the remote helper,
 * in one request per listing, and every path it answers is checked here again (parseId, entryFor);
 * its home there (and Claude Code's auto memory of it) is not looked at.
 */
import { CairnError } from '../../common/errors';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentFilePlace } from '../../common/agent-files/schema';
import { isGitDir, isSafeName } from '../../common/memory/paths';
import { CLAUDE_PROJECT_DIR_MAX, claudeProjectDirName } from '../harvest/claude-transcript';
import { findGitRoot } from '../workspaces/identity';
import type { WorkspaceRegistry } from '../workspaces/registry';
import { namesIn } from '../runtime/local/containment';
import { RuntimeError } from '../runtime/runtime';
import type { CheckoutFileFound } from '../runtime/ssh/ssh-runtime';
import { CATALOGUE, entryFor, MAX_FILES_PER_PATTERN, MAX_PATTERN_DEPTH, nameMatches, type CatalogueEntry } from './catalogue';
import { inspect, MAX_AGENT_FILE_BYTES, realDir, type Base, type Inspected } from './envelope';
import { inspectedOf, inspectRemote, isRemote, remoteFailure, type RemoteBase } from './remote-checkout';

/** A refusal a person can act on (an unknown file, an unreadable one); its message names no host path. */
export class AgentFilesError extends CairnError {}

/** Where files are looked for: a folder on this machine, or an SSH workspace's checkout on its host. */
export type AnyBase = Base | RemoteBase;

/** Where a workspace's agent files are looked for. */
export interface Bases {
  readonly workspaceId: string | null;
  /** The user's home; null when it does not exist. */
  readonly home: Base | null;
  /** The checkout (on its host for an SSH workspace); null with `checkoutReason` when it cannot be looked at. */
  readonly checkout: AnyBase | null;
  readonly checkoutReason: string | null;
  /** The names Claude Code may give this checkout's project folder under ~/.claude/projects. */
  readonly projectFolders: readonly string[];
}

/** One file found. */
export interface Located {
  readonly id: string;
  readonly entry: CatalogueEntry;
  readonly base: AnyBase;
  readonly rel: readonly string[];
  readonly inspected: Inspected;
}

const NO_WORKSPACE = 'no workspace is selected.';

function realOrNull(dir: string): string | null {
  try {
    const real = fs.realpathSync.native(dir);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** The bases of `workspaceId` (null: the home's files alone). */
export async function basesFor(userHome: string, registry: WorkspaceRegistry, workspaceId: string | null): Promise<Bases> {
  const homeReal = realOrNull(userHome);
  const home: Base | null = homeReal ? { place: 'global', real: homeReal } : null;
  if (workspaceId === null) return { workspaceId, home, checkout: null, checkoutReason: NO_WORKSPACE, projectFolders: [] };
  const entry = registry.get(workspaceId);
  if (!entry) throw new AgentFilesError(`No workspace ${workspaceId} is registered; add it first.`);
  if (entry.kind === 'ssh') {
    // Its checkout is read on its host (remote-checkout.ts); no request is made until one is needed.
    // Claude Code's auto memory of it is in the host's home, which is not looked at.
    const runtime = await registry.ssh.runtimeOf(entry);
    const why = (err: unknown): string => {
      if (err instanceof RuntimeError && err.code === 'ENOENT') return `the checkout of this workspace no longer exists on ${entry.host}.`;
      if (err instanceof RuntimeError && err.code === 'IO') return `${entry.host} could not read it (${err.errno ?? 'EIO'}).`;
      return registry.ssh.unreachableReason(entry, runtime.lastError ?? err);
    };
    return { workspaceId, home, checkout: { place: 'checkout', remote: { runtime, path: entry.path, why } }, checkoutReason: null, projectFolders: [] };
  }
  const problem = registry.folderProblem(workspaceId);
  const real = problem === null ? realOrNull(entry.path) : null;
  if (real === null) return { workspaceId, home, checkout: null, checkoutReason: problem ?? 'its folder cannot be opened.', projectFolders: [] };
  // The checkout's files are at its git root (where project memory is); the workspace's folder alone outside git.
  const root = (await findGitRoot(real)) ?? real;
  return { workspaceId, home, checkout: { place: 'checkout', real: root }, checkoutReason: null, projectFolders: projectFolders(homeReal, [entry.path, real, root]) };
}

/**
 * Claude Code's project folder names for these directories (its encoding, claude-transcript.ts):
 * past 200 characters the name is cut and a hash appended, which differs by runtime, so the
 * folders beginning with the cut name are taken too.
 */
function projectFolders(homeReal: string | null, dirs: readonly string[]): string[] {
  const names = new Set<string>();
  let listed: string[] | null = null;
  for (const dir of dirs) {
    const name = claudeProjectDirName(dir.normalize('NFC'));
    names.add(name);
    if (name.length > CLAUDE_PROJECT_DIR_MAX && homeReal) {
      const prefix = `${name.slice(0, CLAUDE_PROJECT_DIR_MAX)}-`;
      listed ??= safeNames(path.join(homeReal, '.claude', 'projects'), '~/.claude/projects');
      for (const entry of listed) if (entry.startsWith(prefix)) names.add(entry);
    }
  }
  return [...names].filter(isSafeName);
}

/**
 * The names in `dir` a path may hold, sorted; none when it is not there. A folder that is there but
 * cannot be read is refused (`shown`: how the person knows it), never listed as holding nothing.
 */
function safeNames(dir: string, shown: string): string[] {
  const unreadable = (code: string) => new AgentFilesError(`Cairn cannot read the folder ${shown} (${code}), so the agent files in it cannot be listed. Check its owner and permissions.`);
  return namesIn(dir, unreadable, ['ENOENT', 'ENOTDIR']).filter((n) => isSafeName(n)).sort();
}

/** The id (display path) of a file: `~/<rel>` for the home's, `<rel>` for the checkout's. */
function idOf(place: AgentFilePlace, rel: readonly string[]): string {
  return place === 'global' ? `~/${rel.join('/')}` : rel.join('/');
}

/** An id's place and segments, or null when it is no path Cairn would name (empty, `..`, `.git`, odd characters). */
export function parseId(id: string): { place: AgentFilePlace; rel: string[] } | null {
  const place: AgentFilePlace = id.startsWith('~/') ? 'global' : 'checkout';
  const rel = (place === 'global' ? id.slice(2) : id).split('/');
  if (rel.some((s) => !isSafeName(s) || isGitDir(s))) return null;
  return { place, rel };
}

/** What a listing found, and whether the checkout could be looked at (else why not). */
export interface Discovered {
  readonly files: Located[];
  readonly checkoutReason: string | null;
}

/**
 * Every catalogued file that exists for these bases, in catalogue order (files of one pattern by
 * name). A remote checkout is listed in one request; when its host cannot be used, the home's
 * files are still listed and `checkoutReason` says why the checkout's are not.
 */
export async function discover(bases: Bases): Promise<Discovered> {
  let checkout = bases.checkout;
  let checkoutReason = bases.checkoutReason;
  let remote: Map<CatalogueEntry, CheckoutFileFound[]> | null = null;
  if (checkout && isRemote(checkout)) {
    try {
      remote = await listRemote(checkout);
    } catch (err) {
      const why = remoteFailure(checkout, err);
      if (why === null) throw err;
      checkoutReason = why;
      checkout = null;
    }
  }
  const found: Located[] = [];
  for (const entry of CATALOGUE) {
    const base = entry.place === 'global' ? bases.home : checkout;
    if (!base) continue;
    if (isRemote(base)) {
      for (const file of remote?.get(entry) ?? []) found.push({ id: idOf(entry.place, file.rel), entry, base, rel: file.rel, inspected: inspectedOf(base, file) });
      continue;
    }
    const dirs: string[][] = [];
    if (entry.projectFolder) {
      for (const folder of bases.projectFolders) dirs.push([...entry.dir, folder, ...entry.projectFolder.below]);
    } else dirs.push([...entry.dir]);
    for (const dir of dirs) {
      const rels = 'exact' in entry.name ? [[...dir, entry.name.exact]] : walk(base, dir, entry);
      for (const rel of rels) {
        const inspected = inspect(base, rel);
        if (inspected) found.push({ id: idOf(entry.place, rel), entry, base, rel, inspected });
      }
    }
  }
  return { files: found, checkoutReason };
}

/**
 * The checkout's catalogued files on its host, by entry, in one request. What comes back is
 * checked again: a path must be one Cairn would name (parseId) and belong to the entry it was
 * listed for, or it is dropped.
 */
async function listRemote(base: RemoteBase): Promise<Map<CatalogueEntry, CheckoutFileFound[]>> {
  const entries = CATALOGUE.filter((e) => e.place === 'checkout' && !e.projectFolder);
  const listed = await base.remote.runtime.checkoutFiles(
    base.remote.path,
    entries.map((e) => ({ dir: e.dir, name: e.name })),
    { maxBytes: MAX_AGENT_FILE_BYTES, depth: MAX_PATTERN_DEPTH, perPattern: MAX_FILES_PER_PATTERN },
  );
  const out = new Map<CatalogueEntry, CheckoutFileFound[]>();
  for (const file of listed) {
    const entry = entries[file.pattern];
    const parsed = parseId(file.rel.join('/'));
    if (!entry || !parsed || parsed.place !== 'checkout' || entryFor('checkout', parsed.rel, []) !== entry) continue;
    const files = out.get(entry) ?? [];
    if (files.length < MAX_FILES_PER_PATTERN) files.push(file);
    out.set(entry, files);
  }
  return out;
}

/** What is at `rel` below a base now (on its host for a remote checkout); null when nothing is. */
export async function inspectAt(base: AnyBase, rel: readonly string[]): Promise<Inspected | null> {
  if (!isRemote(base)) return inspect(base, rel);
  try {
    return await inspectRemote(base, rel);
  } catch (err) {
    const why = remoteFailure(base, err);
    if (why === null) throw err;
    throw new AgentFilesError(`The checkout's files cannot be shown: ${why}`);
  }
}

/** The files of a suffix pattern below `dir` (walking real directories), sorted, capped. */
function walk(base: Base, dir: readonly string[], entry: CatalogueEntry): string[][] {
  const pattern = entry.name;
  if ('exact' in pattern) return [];
  const start = realDir(base, dir);
  if (start === null) return [];
  const out: string[][] = [];
  const visit = (real: string, rel: readonly string[], depth: number): void => {
    for (const name of safeNames(real, idOf(entry.place, rel))) {
      if (out.length >= MAX_FILES_PER_PATTERN) return;
      if (isGitDir(name)) continue;
      const st = fs.lstatSync(path.join(real, name), { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) {
        if (pattern.recursive && depth + 1 < MAX_PATTERN_DEPTH) visit(path.join(real, name), [...rel, name], depth + 1);
      } else if (nameMatches(pattern, name)) {
        out.push([...rel, name]);
      }
    }
  };
  visit(start, dir, 0);
  return out;
}

/** The catalogued place an id names for these bases, or a refusal saying why it names none. */
export function resolveId(bases: Bases, id: string): { entry: CatalogueEntry; base: AnyBase; rel: string[] } {
  const parsed = parseId(id);
  const entry = parsed ? entryFor(parsed.place, parsed.rel, bases.projectFolders) : null;
  if (!parsed || !entry) throw new AgentFilesError(`${JSON.stringify(id)} is not a file another agent reads at a place Cairn knows (see "Other agents' files" in the README).`);
  const base = parsed.place === 'global' ? bases.home : bases.checkout;
  if (!base) throw new AgentFilesError(parsed.place === 'global' ? 'Your home folder cannot be opened.' : `The checkout's files cannot be shown: ${bases.checkoutReason ?? 'it cannot be opened.'}`);
  return { entry, base, rel: parsed.rel };
}
