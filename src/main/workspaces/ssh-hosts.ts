/**
 * The SSH side of remote workspaces: how a workspace's host is reached, one SshRuntime per
 * workspace and process on its host's pooled connection, what is known of each remote checkout
 * (git root, project id, found once per process), why a host cannot be used (in words a person
 * or a model can act on, naming no local path), and host-key trust.
 *
 * Invariant: a host key is trusted only through trust(), which records the key the host presents
 * now, and only when it matches the fingerprint the person checked. What is registered (config.json)
 * is the registry's: this module reads entries and never writes them.
 */
import type { HostKeyState } from '../runtime/ssh/known-hosts';
import { recordHostKey } from '../runtime/ssh/known-hosts';
import type { ConnectionOptions } from '../runtime/ssh/ssh-connection';
import { SshError } from '../runtime/ssh/ssh-error';
import type { CheckoutFacts, SshRuntime } from '../runtime/ssh/ssh-runtime';
import { cairnKnownHosts, parseHostSpec, resolveSshTarget, type ResolveOptions, type SshTarget } from '../runtime/ssh/ssh-target';
import { originFromConfig, projectIdFromFacts } from './identity';

/** What this module needs of a registered SSH workspace. */
export interface SshEntry {
  readonly id: string;
  readonly host: string;
  readonly path: string;
  readonly identity: string | null;
  readonly knownHosts: string | null;
}

/** What is known of a remote checkout: its git root and project identity (null: not in git). */
export interface RemoteFacts {
  readonly gitRoot: string | null;
  readonly projectId: string | null;
}

export interface HostReachability {
  /** Why the host cannot be used now; null when it can. */
  readonly reason: string | null;
  readonly hostKey: { readonly host: string; readonly fingerprint: string; readonly state: HostKeyState } | null;
}

export interface SshHostsOptions {
  /** Where ~/.ssh is, and the environment (SSH_AUTH_SOCK); tests point these elsewhere. */
  readonly ssh?: Omit<ResolveOptions, 'home'>;
  readonly connection?: ConnectionOptions;
}

/**
 * The SSH code (ssh2, the connection, the remote runtime), loaded when a remote workspace is first
 * used: a command on a local workspace starts without it.
 */
async function loadSsh() {
  const [connection, runtime] = await Promise.all([import('../runtime/ssh/ssh-connection'), import('../runtime/ssh/ssh-runtime')]);
  return { connectionFor: connection.connectionFor, scanHostKey: connection.scanHostKey, SshRuntime: runtime.SshRuntime };
}

export class SshHosts {
  /** Facts of remote checkouts, found once per process per workspace. */
  private readonly facts = new Map<string, RemoteFacts>();
  private readonly runtimes = new Map<string, SshRuntime>();

  constructor(
    private readonly home: string,
    private readonly options: SshHostsOptions = {},
  ) {}

  /** How `entry`'s host is reached (explicit values, then ~/.ssh/config, then defaults). */
  targetOf(entry: Pick<SshEntry, 'host' | 'identity' | 'knownHosts'>): SshTarget {
    const spec = parseHostSpec(entry.host);
    return resolveSshTarget({ ...spec, identity: entry.identity ?? undefined, knownHosts: entry.knownHosts ?? undefined }, { home: this.home, ...this.options.ssh });
  }

  /**
   * The runtime of a remote workspace, one per workspace and process (its mutexes and cached
   * listings then serve every request), on its host's pooled connection.
   */
  async runtimeOf(entry: SshEntry): Promise<SshRuntime> {
    const { connectionFor, SshRuntime } = await loadSsh();
    const connection = connectionFor(this.targetOf(entry), this.options.connection);
    const key = `${entry.id}\0${entry.host}\0${entry.path}`;
    let runtime = this.runtimes.get(key);
    if (!runtime || runtime.connection !== connection) {
      runtime = new SshRuntime(connection, entry.id);
      this.runtimes.set(key, runtime);
    }
    return runtime;
  }

  /** What this process already found of `entry`'s checkout, if anything. */
  known(entry: Pick<SshEntry, 'id'>): RemoteFacts | undefined {
    return this.facts.get(entry.id);
  }

  /** Keeps what a probe of `entry`'s checkout found: its git root and project identity. */
  remember(entry: Pick<SshEntry, 'id' | 'host'>, found: Extract<CheckoutFacts, { kind: 'dir' }>): RemoteFacts {
    const origin = found.gitRoot ? originFromConfig(found.gitConfig) : null;
    const projectId = found.gitRoot ? projectIdFromFacts(origin, found.rootCommits[0] ?? null, `ssh:${entry.host}:${found.gitRoot}`) : null;
    const known = { gitRoot: found.gitRoot, projectId };
    this.facts.set(entry.id, known);
    return known;
  }

  /** Why a remote workspace's host cannot be used, for a person or a model (no local paths). */
  unreachableReason(entry: Pick<SshEntry, 'id' | 'host'>, err: unknown): string {
    if (err instanceof SshError) {
      if (err.kind === 'hostkey' && err.hostKey) {
        const verb = err.hostKey.state === 'changed' ? 'has CHANGED' : 'is not trusted yet';
        return `the host key of ${entry.host} ${verb} (${err.hostKey.keyType} ${err.hostKey.fingerprint}); a person must check it and run \`cairn workspace trust ${entry.id}\`.`;
      }
      return `the SSH host ${entry.host} cannot be used: ${err.message.replace(/\.$/, '')}.`;
    }
    return `the SSH host ${entry.host} cannot be reached right now.`;
  }

  /** Whether `entry`'s host can be used now, and the host key it presents. */
  async reachability(entry: SshEntry): Promise<HostReachability> {
    const runtime = await this.runtimeOf(entry);
    const connection = runtime.connection;
    let reason: string | null = null;
    try {
      // A key trusted since the last failure is worth trying again at once.
      if (!connection.connected) connection.resetBackoff();
      await runtime.probe();
    } catch (err) {
      reason = this.unreachableReason(entry, err);
    }
    const key = connection.lastHostKey;
    return { reason, hostKey: key ? { host: key.host, fingerprint: key.fingerprint, state: key.state } : null };
  }

  /**
   * Trusts the host key of `entry`'s host: records it in `<home>/known_hosts`, but only if the
   * host presents exactly `fingerprint` now. Returns what was done, for a person; `refuse` makes
   * the error a person is shown.
   */
  async trust(entry: SshEntry, fingerprint: string, refuse: (message: string) => Error): Promise<string> {
    const target = this.targetOf(entry);
    const { connectionFor, scanHostKey } = await loadSsh();
    let presented: Awaited<ReturnType<typeof scanHostKey>>;
    try {
      presented = await scanHostKey(target);
    } catch (err) {
      throw refuse(`Cannot read the host key of ${entry.host}: ${err instanceof SshError ? err.message : 'the host cannot be reached'}`);
    }
    if (presented.fingerprint !== fingerprint.trim()) {
      throw refuse(`${presented.host} presents ${presented.fingerprint}, not ${fingerprint.trim()}; nothing was trusted.`);
    }
    if (presented.state === 'trusted') return `${presented.host} (${presented.fingerprint}) is already trusted.`;
    recordHostKey(cairnKnownHosts(this.home), target.hostname, target.port, presented.blob);
    const connection = connectionFor(target, this.options.connection);
    connection.close();
    connection.resetBackoff();
    const after = await scanHostKey(target).catch(() => null);
    if (after && after.state === 'changed') {
      throw refuse(
        `Recorded ${presented.fingerprint} for ${presented.host}, but another known_hosts file (such as ~/.ssh/known_hosts) still lists an older key for it; remove that line (ssh-keygen -R '${presented.host}') and try again.`,
      );
    }
    return `Trusted ${presented.host} (${presented.keyType} ${presented.fingerprint}); recorded in Cairn's known_hosts.`;
  }
}

