/**
 * WorkspaceRegistry owns `<home>/config.json`: the registered workspaces and the app's own
 * settings. Writes are atomic (temp file and rename) under the cross-process lock beside the file,
 * so the app and CLI processes can register workspaces at the same time. (Remote workspaces over
 * SSH extend this registry in a later release.)
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { settingsSchema } from '../../common/api/contract';
import type { Scope } from '../../common/memory/constants';
import type { MemorySession, ScopeBinding } from '../memory/memory-service';
import { withLocalLock } from '../runtime/local-lock';
import { LocalRuntime } from '../runtime/local-runtime';
import { workspaceIdFor } from './identity';
import { globalRoot, resolveLocalSession } from './session';

const workspaceEntry = z.object({ id: z.string(), name: z.string(), kind: z.literal('local'), path: z.string() });
export type WorkspaceEntry = z.infer<typeof workspaceEntry>;
export type Settings = z.infer<typeof settingsSchema>;

const configSchema = z.object({
  version: z.literal(1).catch(1),
  workspaces: z.array(z.unknown()).catch([]),
  settings: z.unknown().catch({}),
});

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

const sharedLocal = new LocalRuntime();

export class WorkspaceRegistry {
  readonly file: string;

  constructor(readonly home: string) {
    this.file = path.join(home, 'config.json');
  }

  private read(): { workspaces: WorkspaceEntry[]; settings: Settings } {
    let raw: unknown = {};
    try {
      raw = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {}
    const config = configSchema.parse(typeof raw === 'object' && raw !== null ? raw : {});
    const workspaces = config.workspaces.flatMap((w) => {
      const parsed = workspaceEntry.safeParse(w);
      return parsed.success ? [parsed.data] : [];
    });
    const settings = settingsSchema.safeParse(config.settings);
    return { workspaces, settings: settings.success ? settings.data : settingsSchema.parse({}) };
  }

  private async update<T>(change: (config: { workspaces: WorkspaceEntry[]; settings: Settings }) => T): Promise<T> {
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    return withLocalLock(this.file, async () => {
      const config = this.read();
      const result = change(config);
      const temp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
      fs.writeFileSync(temp, `${JSON.stringify({ version: 1, ...config }, null, 2)}\n`, { mode: 0o600 });
      fs.renameSync(temp, this.file);
      return result;
    });
  }

  list(): WorkspaceEntry[] {
    return this.read().workspaces;
  }

  get(id: string): WorkspaceEntry | null {
    return this.list().find((w) => w.id === id) ?? null;
  }

  async add(name: string, dir: string): Promise<WorkspaceEntry> {
    const absolute = path.resolve(dir);
    let st: fs.Stats;
    try {
      st = fs.statSync(absolute);
    } catch {
      throw new RegistryError(`There is no folder at ${absolute}.`);
    }
    if (!st.isDirectory()) throw new RegistryError(`${absolute} is a file, not a folder.`);
    const real = fs.realpathSync(absolute);
    const id = await workspaceIdFor(real);
    return this.update((config) => {
      const existing = config.workspaces.find((w) => w.id === id);
      if (existing) return existing;
      const entry: WorkspaceEntry = { id, name: name.trim() || path.basename(real), kind: 'local', path: real };
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

  settings(): Settings {
    return this.read().settings;
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
          global: { scope: 'global', available: true, runtime: sharedLocal, root: { path: globalRoot(this.home), anchor: this.home } },
          project: none('project'),
          workspace: none('workspace'),
        },
      };
    }
    const entry = this.get(workspaceId);
    if (!entry) throw new RegistryError(`No workspace ${workspaceId} is registered; add it first.`);
    return resolveLocalSession({ home: this.home, cwd: entry.path, workspaceId: entry.id }, sharedLocal);
  }
}
