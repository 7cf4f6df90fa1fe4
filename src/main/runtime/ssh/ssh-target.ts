/**
 * Where an SSH workspace's host is and how to log in, resolved as OpenSSH would: the
 * `[user@]host[:port]` a person typed, then `~/.ssh/config` (Host aliases: HostName, User, Port,
 * IdentityFile, UserKnownHostsFile) through the ssh-config parser, then OpenSSH's defaults (the
 * local user, port 22, ssh-agent at SSH_AUTH_SOCK, ~/.ssh/id_ed25519, id_ecdsa, id_rsa).
 * Explicit values (typed, or stored with the workspace) win over the config file.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { errnoOf } from '../local/containment';
import { SshError } from './ssh-error';

/**
 * ssh-config, loaded the first time a host is resolved: a command on a local workspace (an agent's
 * hook, say) never needs it.
 */
let sshConfig: typeof import('ssh-config').default | undefined;
function parseSshConfig(text: string): ReturnType<typeof import('ssh-config').default.parse> {
  sshConfig ??= (createRequire(import.meta.url)('ssh-config') as typeof import('ssh-config')).default;
  return sshConfig.parse(text);
}

export interface SshSpec {
  /** The host as typed: an alias of ~/.ssh/config or a host name. */
  readonly host: string;
  readonly user?: string | undefined;
  readonly port?: number | undefined;
  /** An explicit private key file (first choice). */
  readonly identity?: string | undefined;
  /** An extra known_hosts file to trust (besides ~/.ssh/known_hosts and <home>/known_hosts). */
  readonly knownHosts?: string | undefined;
}

export interface SshTarget {
  /** The name the person uses (alias), for messages and the trust command. */
  readonly alias: string;
  /** What is connected to, after HostName. */
  readonly hostname: string;
  readonly port: number;
  readonly user: string;
  /** Private key files to try, in order (missing ones are skipped). */
  readonly identities: readonly string[];
  /** Whether `identities` came from the person or the config (then a failure to read one is reported). */
  readonly explicitIdentities: readonly string[];
  /** known_hosts files consulted, in order; the last is Cairn's own, where trust is recorded. */
  readonly knownHostsFiles: readonly string[];
  readonly agent: string | null;
}

/** `[user@]host[:port]` -> parts; throws a plain message for anything else. */
export function parseHostSpec(spec: string): { host: string; user?: string; port?: number } {
  const m = /^(?:([^@\s:/]+)@)?(\[[^\]\s]+\]|[^@\s:/[\]]+)(?::(\d{1,5}))?$/.exec(spec.trim());
  if (!m) throw new Error(`"${spec}" is not [USER@]HOST[:PORT].`);
  const host = m[2]!.replace(/^\[|\]$/g, '');
  const port = m[3] === undefined ? undefined : Number(m[3]);
  if (port !== undefined && (port < 1 || port > 65535)) throw new Error(`Port ${port} is out of range.`);
  return { host, ...(m[1] ? { user: m[1] } : {}), ...(port !== undefined ? { port } : {}) };
}

/** `[user@]host[:port]:/abs/path` (the CLI's --ssh) -> host spec and path. */
export function parseSshLocation(location: string): { host: string; user?: string; port?: number; path: string } {
  const idx = location.indexOf(':/');
  if (idx < 0) throw new Error(`--ssh takes [USER@]HOST[:PORT]:/ABSOLUTE/PATH; got "${location}".`);
  let hostPart = location.slice(0, idx);
  let remotePath = location.slice(idx + 1);
  // `host:2222:/path`: the port is the last `:NNN` of the host part.
  const portMatch = /^(.*):(\d{1,5})$/.exec(hostPart);
  if (portMatch && !hostPart.endsWith(']')) hostPart = `${portMatch[1]}:${portMatch[2]}`;
  remotePath = remotePath.replace(/\/+$/, '') || '/';
  return { ...parseHostSpec(hostPart), path: remotePath };
}

/** The `[user@]host[:port]` form of a spec, as stored and shown. */
export function formatHostSpec(spec: { host: string; user?: string | undefined; port?: number | undefined }): string {
  const host = spec.host.includes(':') ? `[${spec.host}]` : spec.host;
  return `${spec.user ? `${spec.user}@` : ''}${host}${spec.port ? `:${spec.port}` : ''}`;
}

function expandHome(p: string): string {
  return p === '~' ? os.homedir() : p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export interface ResolveOptions {
  /** Cairn's home: `<home>/known_hosts` is always consulted, and is where trust is recorded. */
  readonly home: string;
  /** Where ~/.ssh lives (tests point it elsewhere); default os.homedir()/.ssh. */
  readonly sshDir?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function cairnKnownHosts(home: string): string {
  return path.join(home, 'known_hosts');
}

export function resolveSshTarget(spec: SshSpec, options: ResolveOptions): SshTarget {
  const sshDir = options.sshDir ?? path.join(os.homedir(), '.ssh');
  const env = options.env ?? process.env;
  let computed: Record<string, string | string[]> = {};
  let text: string | null = null;
  try {
    text = fs.readFileSync(path.join(sshDir, 'config'), 'utf8');
  } catch (err) {
    // No config file (or no ~/.ssh at all) means OpenSSH's defaults; one that is there but cannot
    // be read would send the connection to the wrong host or user without a word.
    const code = errnoOf(err);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new SshError('connect', `Cannot read the SSH config file (~/.ssh/config: ${code}), so how to reach ${spec.host} is unknown.`);
  }
  if (text !== null) {
    try {
      computed = parseSshConfig(text).compute(spec.host);
    } catch (err) {
      // ssh itself refuses a config it cannot parse.
      throw new SshError('connect', `The SSH config file (~/.ssh/config) does not parse: ${(err as Error).message}`);
    }
  }
  const get = (key: string): string | string[] | undefined => {
    const found = Object.keys(computed).find((k) => k.toLowerCase() === key.toLowerCase());
    return found === undefined ? undefined : computed[found];
  };
  const hostname = first(get('HostName'))?.replace(/%h/g, spec.host) ?? spec.host;
  const configPort = Number(first(get('Port')));
  const port = spec.port ?? (Number.isInteger(configPort) && configPort > 0 ? configPort : 22);
  const user = spec.user ?? first(get('User')) ?? env.USER ?? os.userInfo().username;
  const configured = get('IdentityFile');
  const fromConfig = (Array.isArray(configured) ? configured : configured ? [configured] : []).map((p) => expandHome(p));
  const explicit = [...(spec.identity ? [expandHome(spec.identity)] : []), ...fromConfig];
  const defaults = ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((n) => path.join(sshDir, n));
  const identitiesOnly = first(get('IdentitiesOnly'))?.toLowerCase() === 'yes';
  const identities = [...new Set([...explicit, ...(identitiesOnly && explicit.length > 0 ? [] : defaults)])];
  const userKnown = get('UserKnownHostsFile');
  const knownFromConfig = (Array.isArray(userKnown) ? userKnown : userKnown ? userKnown.split(/\s+/) : []).map((p) => expandHome(p));
  const knownHostsFiles = [
    ...(knownFromConfig.length > 0 ? knownFromConfig : [path.join(sshDir, 'known_hosts')]),
    ...(spec.knownHosts ? [expandHome(spec.knownHosts)] : []),
    cairnKnownHosts(options.home),
  ];
  const agent = identitiesOnly && explicit.length > 0 ? null : env.SSH_AUTH_SOCK && env.SSH_AUTH_SOCK.length > 0 ? env.SSH_AUTH_SOCK : null;
  return { alias: spec.host, hostname, port, user, identities, explicitIdentities: explicit, knownHostsFiles, agent };
}
