/**
 * One persistent SSH connection per host (ssh2, never the `ssh` command line) and the remote
 * helper running on it (remote-helper.ts): framed requests answered in order on one exec channel.
 *
 * Invariants:
 * - a host key is accepted only when a known_hosts file trusts it exactly; otherwise the
 *   connection is refused with an SshError carrying the key's fingerprint (never accepted silently);
 * - every request ends within `requestTimeoutMs`: a host that stops answering fails the requests
 *   in flight and drops the connection, and the next request reconnects (after a failed connect,
 *   with a growing backoff during which requests fail at once with the same reason);
 * - `setNoDelay(true)` on the socket (without it every round trip stalls on Nagle + delayed ACK);
 *   SSH keepalives find a dead peer; an idle connection closes itself after `idleMs`;
 * - the socket keeps the process alive only while a request is in flight, so a CLI process exits
 *   when its work is done without having to close anything.
 * Messages of SshError are for a person or a model: they name the host, never a local file path.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import ssh2, { type AnyAuthMethod, type Client, type ClientChannel } from 'ssh2';
import { HELPER_BOOTSTRAP, HELPER_SOURCE, HELPER_VERSION } from './remote-helper';
import { checkHostKey, type HostKeyInfo } from './known-hosts';
import { connectionPool, SshError } from './ssh-error';
import type { SshTarget } from './ssh-target';

// ssh2 is CommonJS: its named exports are reached through the default export under ESM.
const { Client: SshClient, utils } = ssh2;

export { SshError, closeAllConnections } from './ssh-error';

export interface ConnectionOptions {
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly idleMs?: number;
  readonly keepaliveMs?: number;
}

type Field = string | Uint8Array;

interface Pending {
  resolve(fields: Buffer[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

function encodeFrame(fields: readonly Field[]): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  for (const f of fields) {
    const data = typeof f === 'string' ? Buffer.from(f, 'utf8') : Buffer.from(f.buffer, f.byteOffset, f.byteLength);
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32BE(data.length);
    parts.push(len, data);
    total += 4 + data.length;
  }
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(total);
  return Buffer.concat([head, ...parts]);
}

function decodeFields(payload: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let off = 0; off + 4 <= payload.length; ) {
    const len = payload.readUInt32BE(off);
    out.push(payload.subarray(off + 4, off + 4 + len));
    off += 4 + len;
  }
  return out;
}

/** Private keys to offer, read now; encrypted ones are named so the failure can say why. */
function loadKeys(target: SshTarget): { methods: AnyAuthMethod[]; encrypted: string[]; unreadable: string[] } {
  const methods: AnyAuthMethod[] = [];
  const encrypted: string[] = [];
  const unreadable: string[] = [];
  if (target.agent) methods.push({ type: 'agent', username: target.user, agent: target.agent });
  for (const file of target.identities) {
    let data: Buffer;
    try {
      data = fs.readFileSync(file);
    } catch {
      // A default key that is not there is skipped, as ssh does; a key the person named is reported.
      if (target.explicitIdentities.includes(file)) unreadable.push(path.basename(file));
      continue;
    }
    const parsed = utils.parseKey(data);
    if (parsed instanceof Error) {
      if (/encrypted|passphrase/i.test(parsed.message)) encrypted.push(path.basename(file));
      else if (target.explicitIdentities.includes(file)) unreadable.push(path.basename(file));
      continue;
    }
    const key = Array.isArray(parsed) ? parsed[0] : parsed;
    methods.push({ type: 'publickey', username: target.user, key });
  }
  return { methods, encrypted, unreadable };
}

export class SshConnection {
  private client: Client | null = null;
  private sock: net.Socket | null = null;
  private channel: ClientChannel | null = null;
  private connecting: Promise<void> | null = null;
  private pending: Pending[] = [];
  private inbox: Buffer = Buffer.alloc(0);
  private idleTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private retryAt = 0;
  private lastError: SshError | null = null;
  /** The key the host presented at the last handshake (trusted or not). */
  lastHostKey: (HostKeyInfo & { blob: Buffer }) | null = null;
  /** Counters for tests and the bench. */
  readonly counters = { connects: 0, requests: 0 };
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly idleMs: number;
  private readonly keepaliveMs: number;

  constructor(
    readonly target: SshTarget,
    options: ConnectionOptions = {},
  ) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 20_000;
    this.idleMs = options.idleMs ?? 5 * 60_000;
    this.keepaliveMs = options.keepaliveMs ?? 15_000;
  }

  /** `user@host` (and port off 22), for messages. */
  get where(): string {
    return `${this.target.user}@${this.target.alias}${this.target.port === 22 ? '' : `:${this.target.port}`}`;
  }

  get connected(): boolean {
    return this.channel !== null;
  }

  /** Connects (if needed) and sends one request; resolves with the response's fields. */
  async request(fields: readonly Field[]): Promise<Buffer[]> {
    await this.ensure();
    const channel = this.channel;
    if (!channel) throw this.lastError ?? new SshError('lost', `The connection to ${this.where} was lost.`);
    this.counters.requests++;
    return new Promise<Buffer[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.drop(new SshError('timeout', `${this.where} did not answer within ${Math.round(this.requestTimeoutMs / 1000)} s.`));
      }, this.requestTimeoutMs);
      this.pending.push({ resolve, reject, timer });
      this.activity();
      channel.write(encodeFrame(fields));
    });
  }

  /** Connects now (idempotent); rejects with an SshError saying why it cannot. */
  async ensure(): Promise<void> {
    if (this.channel) return;
    if (!this.connecting) {
      if (this.lastError && Date.now() < this.retryAt) throw this.lastError;
      this.connecting = this.connect().then(
        () => {
          this.failures = 0;
          this.lastError = null;
          this.connecting = null;
        },
        (err: unknown) => {
          const e = err instanceof SshError ? err : new SshError('connect', `Cannot connect to ${this.where}: ${(err as Error)?.message ?? String(err)}.`);
          this.failures++;
          this.lastError = e;
          this.retryAt = Date.now() + Math.min(30_000, 250 * 2 ** (this.failures - 1));
          this.connecting = null;
          this.teardown();
          throw e;
        },
      );
    }
    await this.connecting;
  }

  /** Closes the connection; requests in flight fail. */
  close(): void {
    this.drop(new SshError('lost', `The connection to ${this.where} was closed.`));
    this.lastError = null;
    this.failures = 0;
  }

  /** Forgets a failed connect's backoff (after trusting a key, say). */
  resetBackoff(): void {
    this.lastError = null;
    this.failures = 0;
    this.retryAt = 0;
  }

  private activity(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.pending.length > 0) {
      this.sock?.ref();
      return;
    }
    this.sock?.unref();
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  private drop(err: SshError): void {
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.teardown();
  }

  private teardown(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const client = this.client;
    this.channel = null;
    this.client = null;
    this.inbox = Buffer.alloc(0);
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      client.end();
    }
    this.sock?.destroy();
    this.sock = null;
  }

  private onData(chunk: Buffer): void {
    this.inbox = this.inbox.length === 0 ? chunk : Buffer.concat([this.inbox, chunk]);
    while (this.inbox.length >= 4) {
      const len = this.inbox.readUInt32BE(0);
      if (this.inbox.length < 4 + len) break;
      const payload = this.inbox.subarray(4, 4 + len);
      this.inbox = this.inbox.subarray(4 + len);
      const p = this.pending.shift();
      if (p) {
        clearTimeout(p.timer);
        p.resolve(decodeFields(Buffer.from(payload)));
      }
    }
    this.activity();
  }

  private async connect(): Promise<void> {
    this.counters.connects++;
    const { target } = this;
    const keys = loadKeys(target);
    if (keys.methods.length === 0) {
      if (keys.encrypted.length > 0) {
        throw new SshError('auth', `The key ${keys.encrypted.join(', ')} for ${this.where} is protected by a passphrase; add it to ssh-agent (ssh-add) so Cairn can use it.`);
      }
      if (keys.unreadable.length > 0) throw new SshError('auth', `The key ${keys.unreadable.join(', ')} for ${this.where} cannot be read or is not a private key.`);
      throw new SshError('auth', `No SSH key for ${this.where}: no ssh-agent is running and no key file was found; give one with --identity.`);
    }
    const sock = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: target.hostname, port: target.port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new SshError('connect', `Cannot connect to ${this.where}: no answer within ${Math.round(this.connectTimeoutMs / 1000)} s.`));
      }, this.connectTimeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const why =
          err.code === 'ECONNREFUSED' ? 'connection refused' : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' ? 'unknown host name' : err.code === 'EHOSTUNREACH' || err.code === 'ENETUNREACH' ? 'host unreachable' : (err.code ?? err.message);
        reject(new SshError('connect', `Cannot connect to ${this.where}: ${why}.`));
      });
    });
    sock.setNoDelay(true);
    this.sock = sock;
    const client = new SshClient();
    this.client = client;
    let methodIndex = 0;
    let refusedKey: SshError | null = null;
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (err?: Error) => {
        if (settled) return;
        settled = true;
        if (err) reject(err);
        else resolve();
      };
      client.once('ready', () => settle());
      client.on('error', (err: Error & { level?: string }) => {
        if (refusedKey) return settle(refusedKey);
        if (err.level === 'client-authentication') {
          const note = keys.encrypted.length > 0 ? ` (the key ${keys.encrypted.join(', ')} is protected by a passphrase; add it to ssh-agent with ssh-add)` : '';
          return settle(new SshError('auth', `${this.where} refused every key Cairn offered${note}.`));
        }
        if (err.level === 'client-timeout') return settle(new SshError('timeout', `${this.where} did not finish the SSH handshake in time.`));
        settle(new SshError('connect', `Cannot connect to ${this.where}: ${err.message}.`));
      });
      client.once('close', () => settle(refusedKey ?? new SshError('lost', `The connection to ${this.where} closed during the handshake.`)));
      client.connect({
        sock,
        username: target.user,
        readyTimeout: this.connectTimeoutMs,
        keepaliveInterval: this.keepaliveMs,
        keepaliveCountMax: 3,
        hostVerifier: (key: Buffer) => {
          let info: HostKeyInfo;
          try {
            info = checkHostKey(target.knownHostsFiles, target.hostname, target.port, key);
          } catch (err) {
            refusedKey = err instanceof SshError ? err : new SshError('hostkey', `Cannot check the host key of ${this.where}.`);
            return false;
          }
          this.lastHostKey = { ...info, blob: Buffer.from(key) };
          if (info.state === 'trusted') return true;
          refusedKey =
            info.state === 'changed'
              ? new SshError(
                  'hostkey',
                  `The host key of ${info.host} has CHANGED (it now presents ${info.keyType} ${info.fingerprint}); this can mean someone is intercepting the connection. Cairn will not connect until the new key is trusted.`,
                  info,
                )
              : new SshError('hostkey', `The host key of ${info.host} is not trusted yet (${info.keyType} ${info.fingerprint}).`, info);
          return false;
        },
        authHandler: (_left, _partial, next) => {
          const method = keys.methods[methodIndex++];
          next(method ?? (false as unknown as AnyAuthMethod));
        },
      });
    });
    const channel = await new Promise<ClientChannel>((resolve, reject) => {
      client.exec(HELPER_BOOTSTRAP, (err, ch) => (err ? reject(new SshError('helper', `${this.where} refused to run a command: ${err.message}.`)) : resolve(ch)));
    });
    let stderr = '';
    channel.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 4096) stderr += d.toString('utf8');
    });
    const source = Buffer.from(HELPER_SOURCE, 'utf8');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SshError('helper', `Cairn's helper did not start on ${this.where} in time.`)), this.connectTimeoutMs);
      let buf = Buffer.alloc(0);
      const onReady = (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        if (buf.length < 4 || buf.length < 4 + buf.readUInt32BE(0)) return;
        clearTimeout(timer);
        channel.off('data', onReady);
        channel.off('close', onClose);
        const fields = decodeFields(buf.subarray(4, 4 + buf.readUInt32BE(0)));
        const rest = buf.subarray(4 + buf.readUInt32BE(0));
        if (fields[0]?.toString() !== 'ready' || fields[1]?.toString() !== HELPER_VERSION) {
          reject(new SshError('helper', `Cairn's helper on ${this.where} answered in an unexpected way.`));
          return;
        }
        if (rest.length > 0) this.inbox = Buffer.from(rest);
        resolve();
      };
      const onClose = () => {
        clearTimeout(timer);
        const missingPerl = /perl: (command )?not found|No such file/i.test(stderr);
        reject(
          new SshError(
            'helper',
            missingPerl ? `${this.where} has no perl, which Cairn needs there to reach project memory (install perl on that host).` : `Cairn's helper could not start on ${this.where}${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}.`,
          ),
        );
      };
      channel.on('data', onReady);
      channel.once('close', onClose);
      channel.write(`${source.length}\n`);
      channel.write(source);
    });
    channel.on('data', (chunk: Buffer) => this.onData(chunk));
    const lost = () => {
      if (this.channel === channel) this.drop(new SshError('lost', `The connection to ${this.where} was lost.`));
    };
    channel.on('close', lost);
    client.on('close', lost);
    client.on('error', () => lost());
    this.channel = channel;
    this.activity();
  }
}

/**
 * The host key `target` presents now, read by a handshake that refuses every key (so nothing is
 * authenticated or run): what `cairn workspace trust` shows and records.
 */
export async function scanHostKey(target: SshTarget, timeoutMs = 10_000): Promise<HostKeyInfo & { blob: Buffer }> {
  const where = `${target.alias}${target.port === 22 ? '' : `:${target.port}`}`;
  return new Promise((resolve, reject) => {
    const client = new SshClient();
    let found: (HostKeyInfo & { blob: Buffer }) | null = null;
    const done = (err?: Error) => {
      client.removeAllListeners();
      client.on('error', () => {});
      client.end();
      if (found) resolve(found);
      else reject(err ?? new SshError('connect', `Cannot read the host key of ${where}.`));
    };
    client.on('error', (err: NodeJS.ErrnoException) => {
      if (found) return done();
      const why = err.code === 'ECONNREFUSED' ? 'connection refused' : err.code === 'ENOTFOUND' ? 'unknown host name' : err.message;
      done(new SshError('connect', `Cannot connect to ${where}: ${why}.`));
    });
    client.on('close', () => done());
    client.connect({
      host: target.hostname,
      port: target.port,
      username: target.user,
      readyTimeout: timeoutMs,
      hostVerifier: (key: Buffer) => {
        try {
          found = { ...checkHostKey(target.knownHostsFiles, target.hostname, target.port, key), blob: Buffer.from(key) };
          setImmediate(() => done());
        } catch (err) {
          setImmediate(() => done(err instanceof SshError ? err : new SshError('hostkey', `Cannot check the host key of ${where}.`)));
        }
        return false;
      },
    });
  });
}

/** The pooled connection for a host and login (one per process, shared by every runtime). */
export function connectionFor(target: SshTarget, options: ConnectionOptions = {}): SshConnection {
  const key = JSON.stringify([target.user, target.hostname, target.port, target.identities, target.knownHostsFiles, target.agent]);
  const pooled = connectionPool.get(key);
  if (pooled instanceof SshConnection) return pooled;
  const c = new SshConnection(target, options);
  connectionPool.set(key, c);
  return c;
}
