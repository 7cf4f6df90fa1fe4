/**
 * WorkspaceRegistry owns `<home>/config.json`: the registered workspaces (local checkouts, and
 * remote ones reached over SSH) and the app's own settings. Writes are atomic (temp file and
 * rename) under the cross-process lock beside the file, so the app and CLI processes can register
 * workspaces at the same time.
 *
 * A local workspace's scopes, and the global and workspace scopes of every session, are reached
 * through the LocalRuntime the registry is given (the process's one: src/main/host/home-services.ts).
 * A remote workspace's session reaches its project scope through its host (ssh-hosts.ts: the
 * runtime, what is known of the checkout, host-key trust); its global and workspace scopes stay
 * on this machine. When the host cannot be used (down, or its host key not trusted), the project
 * scope is unavailable with the reason, and the other scopes still work.
 */
import { CairnError } from '../../common/errors';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { settingsSchema } from '../../common/api/settings';
import { ReviewUnknown } from '../memory/review-gate';
import type { Scope } from '../../common/memory/constants';
import { relativeFolderProblem } from '../../common/workspaces/folder-path';
import type { MemorySession, ScopeBinding } from '../memory/session';
import { errnoOf } from '../runtime/local/containment';
import { withLocalLock } from '../runtime/local/file-lock';
import type { Runtime } from '../runtime/runtime';
import { formatHostSpec, parseHostSpec } from '../runtime/ssh/ssh-target';
import { sshWorkspaceIdFor, workspaceIdFor } from './identity';
import { SshHosts, type HostReachability, type SshHostsOptions } from './ssh-hosts';
import { isValidWorkspaceId } from './home-dir';
import { globalRoot, projectRoot, resolveLocalSession, workspaceRoot } from './session';
import { editedConfigText, readStoredConfig, writeConfigText, type Settings, type StoredConfig } from './settings-file';
import { SettingsFileError } from './settings-file-error';


const localEntry = z.object({ id: z.string(), name: z.string(), kind: z.literal('local'), path: z.string() });
const sshEntry = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.literal('ssh'),
  /** The remote checkout's absolute path. */
  path: z.string(),
  /** `[user@]host[:port]` as the person gave it (host may be a ~/.ssh/config alias). */
  host: z.string(),
  identity: z.string().nullable().default(null),
  knownHosts: z.string().nullable().default(null),
  /** The project id last derived from the remote repository, kept for when the host is down. */
  projectId: z.string().nullable().default(null),
});
const workspaceEntry = z.discriminatedUnion('kind', [localEntry, sshEntry]);
export type WorkspaceEntry = z.infer<typeof workspaceEntry>;
export type SshWorkspaceEntry = z.infer<typeof sshEntry>;

/** The public shape of a workspace (the API's workspaceSchema, `cairn workspace list --json`). */
export interface WorkspaceInfo {
  readonly id: string;
  readonly name: string;
  readonly kind: 'local' | 'ssh';
  readonly path: string;
  readonly host: string | null;
}

export function workspaceInfo(entry: WorkspaceEntry): WorkspaceInfo {
  return { id: entry.id, name: entry.name, kind: entry.kind, path: entry.path, host: entry.kind === 'ssh' ? entry.host : null };
}

export interface AddSshRequest {
  readonly name: string;
  /** `[user@]host[:port]`. */
  readonly host: string;
  readonly path: string;
  readonly identity?: string | null | undefined;
  readonly knownHosts?: string | null | undefined;
  readonly id?: string | undefined;
}

export interface WorkspaceStatus {
  readonly id: string;
  readonly reachable: boolean;
  /** Local: a sentence for a person (folderProblem). SSH: the clause agents are told too (unreachableReason). */
  readonly reason: string | null;
  readonly hostKey: HostReachability['hostKey'];
}
export type { Settings };

export class RegistryError extends CairnError {
  override readonly name = 'RegistryError';
}

export interface RegistryOptions extends SshHostsOptions {
  /** The runtime of this machine's disk (the process's one LocalRuntime). */
  readonly local: Runtime;
}

export class WorkspaceRegistry {
  readonly file: string;
  /** The hosts of remote workspaces: runtimes, what is known of each checkout, host-key trust. */
  readonly ssh: SshHosts;
  /** The runtime of this machine's disk, which sessions reach their local scopes through. */
  readonly local: Runtime;

  constructor(
    readonly home: string,
    options: RegistryOptions,
  ) {
    this.file = path.join(home, 'config.json');
    this.local = options.local;
    this.ssh = new SshHosts(home, { ...(options.ssh ? { ssh: options.ssh } : {}), ...(options.connection ? { connection: options.connection } : {}) });
  }

  /** config.json as stored (./settings-file.ts): SettingsFileError when it does not parse. */
  private read(): StoredConfig<WorkspaceEntry> {
    return readStoredConfig(this.file, workspaceEntry);
  }

  /**
   * What in config.json is not valid and fell back (a sentence each, for a person), or, when it
   * does not parse, SettingsFileError.
   */
  problems(): readonly string[] {
    return this.read().invalid;
  }

  /**
   * Changes the stored config under the file's lock: only the members `change` changed are
   * rewritten, the rest of the text stays as it was; a file that does not parse is never written
   * over (SettingsFileError).
   */
  private async update<T>(change: (config: { workspaces: WorkspaceEntry[]; settings: Settings }) => T): Promise<T> {
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    return withLocalLock(this.file, async () => {
      const stored = this.read();
      const config = { workspaces: structuredClone(stored.workspaces), settings: structuredClone(stored.settings) };
      const result = change(config);
      const text = editedConfigText(stored, config);
      if (text !== stored.text) await writeConfigText(this.file, text);
      return result;
    });
  }

  list(): WorkspaceEntry[] {
    return this.read().workspaces;
  }

  get(id: string): WorkspaceEntry | null {
    return this.list().find((w) => w.id === id) ?? null;
  }

  /**
   * Registers a local checkout (idempotent); `id` overrides the id derived from its path. `dir`
   * must be absolute: this may be a server, whose working directory means nothing to the person
   * (a command line resolves its argument against the shell's directory first).
   */
  async add(name: string, dir: string, id?: string): Promise<WorkspaceEntry> {
    if (id !== undefined && !isValidWorkspaceId(id)) throw new RegistryError('A workspace id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.');
    const relative = relativeFolderProblem(dir, 'local');
    if (relative !== null) throw new RegistryError(relative);
    const absolute = path.resolve(dir);
    let st: fs.Stats;
    try {
      st = fs.statSync(absolute);
    } catch (err) {
      // Only a folder that is not there is "no folder": one that cannot be reached (a permission,
      // a link loop) is said as it is, for the person to fix.
      const code = errnoOf(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new RegistryError(`There is no folder at ${absolute}.`);
      throw new RegistryError(`The folder ${absolute} cannot be opened (${code}).`);
    }
    if (!st.isDirectory()) throw new RegistryError(`${absolute} is a file, not a folder.`);
    const real = fs.realpathSync(absolute);
    const wsId = id ?? (await workspaceIdFor(real));
    return this.update((config) => {
      const existing = config.workspaces.find((w) => w.id === wsId);
      if (existing && (existing.kind !== 'local' || existing.path !== real)) throw new RegistryError(`The id ${wsId} is already used by another workspace.`);
      if (existing) return existing;
      const entry: WorkspaceEntry = { id: wsId, name: name.trim() || path.basename(real), kind: 'local', path: real };
      config.workspaces.push(entry);
      return entry;
    });
  }

  /** Removes the registration and the workspace scope; never the checkout or its project memory. */
  async remove(id: string): Promise<boolean> {
    const removed = await this.update((config) => {
      const before = config.workspaces.length;
      config.workspaces = config.workspaces.filter((w) => w.id !== id);
      return config.workspaces.length < before;
    });
    if (removed && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id)) fs.rmSync(path.join(this.home, 'workspaces', id), { recursive: true, force: true });
    return removed;
  }

  /**
   * Gives a workspace another display name (its id, folder and memory stay). Returns the name as
   * stored: trimmed, with line breaks and other control characters taken out.
   */
  async rename(id: string, name: string): Promise<string> {
    const clean = name.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
    if (clean === '') throw new RegistryError('A workspace needs a name; type one, or press Escape to keep the current one.');
    if (clean.length > 100) throw new RegistryError(`A workspace name is at most 100 characters; this one has ${clean.length}.`);
    return this.update((config) => {
      const entry = config.workspaces.find((w) => w.id === id);
      if (!entry) throw new RegistryError(`No workspace ${id} is registered.`);
      entry.name = clean;
      return clean;
    });
  }

  /**
   * What is wrong with a local workspace's folder, in a person's words (the sidebar, the tree's
   * note), or null when it is there (and for SSH workspaces, whose status says it). Agents are told
   * the protocol's own text instead (session.ts): this sentence names a host path and an action in
   * the UI.
   */
  folderProblem(id: string): string | null {
    const entry = this.get(id);
    if (!entry || entry.kind !== 'local') return null;
    let st: fs.Stats;
    try {
      st = fs.statSync(entry.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return `The folder ${entry.path} no longer exists. Remove this workspace, or restore the folder.`;
      return `Cairn cannot open the folder ${entry.path} (${code ?? 'unknown error'}). Check its permissions, or remove this workspace.`;
    }
    return st.isDirectory() ? null : `${entry.path} is now a file, not a folder. Remove this workspace, or restore the folder.`;
  }

  settings(): Settings {
    return this.read().settings;
  }

  /**
   * The scopes under review (the setting), for review mode's gate, read per write. While config.json
   * does not parse nobody can tell, so an agent's write is refused (ReviewUnknown, for the model)
   * rather than let through unreviewed.
   */
  reviewScopes(): readonly string[] {
    try {
      return this.read().settings.reviewScopes;
    } catch (err) {
      if (err instanceof SettingsFileError) throw new ReviewUnknown(err.forModel);
      throw err;
    }
  }

  async setSettings(patch: Partial<Settings>): Promise<Settings> {
    return this.update((config) => {
      config.settings = settingsSchema.parse({ ...config.settings, ...patch });
      return config.settings;
    });
  }

  /** The session a person browsing `workspaceId` sees; null: the global scope alone. */
  async session(workspaceId: string | null): Promise<MemorySession> {
    if (workspaceId === null) {
      const none = (scope: Scope): ScopeBinding => ({ scope, available: false, reason: 'no workspace is selected.' });
      return {
        workspaceId: null,
        projectId: null,
        scopes: {
          global: { scope: 'global', available: true, runtime: this.local, root: { path: globalRoot(this.home), anchor: this.home } },
          project: none('project'),
          workspace: none('workspace'),
        },
      };
    }
    const entry = this.get(workspaceId);
    if (!entry) throw new RegistryError(`No workspace ${workspaceId} is registered; add it first.`);
    if (entry.kind === 'ssh') return this.sshSession(entry);
    return resolveLocalSession({ home: this.home, cwd: entry.path, workspaceId: entry.id }, this.local);
  }

  // ---- remote workspaces ----

  /**
   * Registers a remote checkout. The host is asked about the path when it can be reached: a
   * missing path or a file is refused. An unreachable host or an untrusted key does not stop the
   * registration (the person trusts the key next); the returned `warning` says what is pending.
   */
  async addSsh(req: AddSshRequest): Promise<{ entry: SshWorkspaceEntry; warning: string | null }> {
    let spec: ReturnType<typeof parseHostSpec>;
    try {
      spec = parseHostSpec(req.host);
    } catch (err) {
      throw new RegistryError((err as Error).message);
    }
    if (!req.path.startsWith('/')) throw new RegistryError(`The remote path must be absolute (start with /); got "${req.path}".`);
    const remotePath = req.path.replace(/\/+$/, '') || '/';
    if (req.id !== undefined && !isValidWorkspaceId(req.id)) throw new RegistryError('A workspace id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.');
    const host = formatHostSpec(spec);
    const draft: SshWorkspaceEntry = {
      id: req.id ?? sshWorkspaceIdFor(host, remotePath),
      name: req.name.trim() || remotePath.split('/').filter(Boolean).pop() || host,
      kind: 'ssh',
      path: remotePath,
      host,
      identity: req.identity ? path.resolve(req.identity) : null,
      knownHosts: req.knownHosts ? path.resolve(req.knownHosts) : null,
      projectId: null,
    };
    let warning: string | null = null;
    const runtime = await this.ssh.runtimeOf(draft);
    try {
      const facts = await runtime.probeCheckout(remotePath);
      if (facts.kind !== 'dir') {
        throw new RegistryError(facts.kind === 'missing' ? `There is no folder ${remotePath} on ${host}.` : `${remotePath} on ${host} is a file, not a folder.`);
      }
      draft.projectId = this.ssh.remember(draft, facts).projectId;
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      warning = this.ssh.unreachableReason(draft, runtime.lastError ?? err);
    }
    const entry = await this.update((config) => {
      const existing = config.workspaces.find((w) => w.id === draft.id);
      if (existing && existing.kind === 'ssh') return existing;
      if (existing) throw new RegistryError(`The id ${draft.id} is already used by another workspace.`);
      config.workspaces.push(draft);
      return draft;
    });
    return { entry: entry as SshWorkspaceEntry, warning };
  }

  /** Whether a workspace can be used now, and for SSH the host key its host presents. */
  async status(id: string): Promise<WorkspaceStatus> {
    const entry = this.get(id);
    if (!entry) return { id, reachable: false, reason: 'it is not registered.', hostKey: null };
    if (entry.kind === 'local') {
      const problem = this.folderProblem(id);
      return { id, reachable: problem === null, reason: problem, hostKey: null };
    }
    const { reason, hostKey } = await this.ssh.reachability(entry);
    return { id, reachable: reason === null, reason, hostKey };
  }

  /**
   * Trusts the host key of an SSH workspace's host: records it in `<home>/known_hosts`, but only
   * if the host presents exactly `fingerprint` now. Returns what was done, for a person.
   */
  async trust(id: string, fingerprint: string): Promise<string> {
    const entry = this.get(id);
    if (!entry) throw new RegistryError(`No workspace ${id} is registered.`);
    if (entry.kind !== 'ssh') throw new RegistryError(`${entry.name} is a local workspace; only SSH hosts have host keys.`);
    return this.ssh.trust(entry, fingerprint, (message) => new RegistryError(message));
  }

  private async sshSession(entry: SshWorkspaceEntry): Promise<MemorySession> {
    const runtime = await this.ssh.runtimeOf(entry);
    const local = (scope: 'global' | 'workspace'): ScopeBinding =>
      scope === 'global'
        ? { scope, available: true, runtime: this.local, root: { path: globalRoot(this.home), anchor: this.home } }
        : { scope, available: true, runtime: this.local, root: { path: workspaceRoot(this.home, entry.id), anchor: this.home } };
    let project: ScopeBinding;
    let projectId = this.ssh.known(entry)?.projectId ?? entry.projectId;
    try {
      let known = this.ssh.known(entry);
      if (!known) {
        const facts = await runtime.probeCheckout(entry.path);
        if (facts.kind !== 'dir') throw new RegistryError(`the checkout of this workspace no longer exists on ${entry.host}.`);
        known = this.ssh.remember(entry, facts);
        projectId = known.projectId;
        if (projectId !== entry.projectId) void this.setProjectId(entry.id, projectId).catch(() => {});
      } else {
        await runtime.probe();
      }
      project = known.gitRoot
        ? { scope: 'project', available: true, runtime, root: { path: projectRoot(known.gitRoot), anchor: known.gitRoot } }
        : { scope: 'project', available: false, reason: `the checkout on ${entry.host} is not inside a git repository, so there is no project; use /memories/workspace or /memories/global instead.` };
    } catch (err) {
      project = { scope: 'project', available: false, reason: err instanceof RegistryError ? err.message : this.ssh.unreachableReason(entry, runtime.lastError ?? err) };
    }
    return { workspaceId: entry.id, projectId, scopes: { global: local('global'), project, workspace: local('workspace') } };
  }

  private async setProjectId(id: string, projectId: string | null): Promise<void> {
    await this.update((config) => {
      const e = config.workspaces.find((w) => w.id === id);
      if (e && e.kind === 'ssh') e.projectId = projectId;
    });
  }
}
