/**
 * ContextHost: a long-lived process's answer to the prompt hook over the home's socket
 * (./context-socket.ts). The app, `cairn serve` and `cairn mcp` each start one with their home's
 * services (host/home-services.ts).
 *
 * Every host listens on a socket of its own, `<home>/run/context-<pid>-<random>.sock`, and the
 * home's `context.sock` is a link to the one that serves. A host claims the link when nobody
 * serves it: the link is missing, its host is gone (its socket refuses; the socket is removed),
 * silent, or of another build or protocol (after an upgrade). Otherwise it stands by, and looks
 * again every CLAIM_INTERVAL_MS, so a home is served again soon after its host closes. Claims and
 * a closing host's removal of its link are made under the lock `<home>/run/context.lock`, and the
 * link is replaced whole (a new link renamed over it, runtime/local/atomic-write.ts): hooks find
 * the old host or the new one.
 * Node removes a closing host's own socket by its name, which no other host uses.
 *
 * Invariants:
 * - The answer is the hook's own: the same function (./context-answer.ts) on the same inputs,
 *   with a builder and a usage store of its own, so nothing this process has pending (its own
 *   usage not yet flushed) changes a byte. Each request lists the roots again, as a hook does, so
 *   an answer is never staler than the hook's; the builder's facts kept between requests are only
 *   used under their files' versions. A checkout whose project id would come from running git
 *   (no origin) is refused: git would run with this process's environment, not the hook's.
 * - Only a hook of the same build and protocol, for this home, is answered; anything else is
 *   refused with a reason, and the hook works the answer out itself.
 * - The sockets never keep the process alive (unref); a connection is dropped after
 *   CONNECTION_TIMEOUT_MS, and all of them when the host closes, so closing never waits on one.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ContextBuilder } from './context-builder';
import { UsageStore } from '../memory/usage-store';
import { withLocalLock } from '../runtime/local/file-lock';
import { writeOwnSymlinkSync } from '../runtime/local/atomic-write';
import { realpathOrNull } from '../runtime/local/containment';
import { processRuns } from '../runtime/local/process-alive';
import type { LocalRuntime } from '../runtime/local/local-runtime';
import { projectIdNeedsGit } from '../workspaces/identity';
import { contextBuilderFor, localContextAnswer } from './context-answer';
import {
  CAIRN_BUILD,
  CONTEXT_SOCKET_PROTOCOL,
  MAX_REQUEST_BYTES,
  contextSocketPath,
  exchange,
  fitsSocketPath,
  isOwnPrivateDir,
  type ContextAnswerLine,
  type ContextRequest,
  type ContextRequestLine,
  type ProbeAnswerLine,
} from './context-socket';
import { CONTEXT_HOOK_LOG, logHookError } from './hook-log';

/** How often a host that does not serve looks whether it should. */
const CLAIM_INTERVAL_MS = 30_000;
/** How long a host waits for the serving host to say who it is before taking its place. */
const PROBE_TIMEOUT_MS = 1_000;
/** A connection still open after this long is dropped (the hook itself waits a second). */
const CONNECTION_TIMEOUT_MS = 10_000;

const OWN_SOCKET = /^context-(\d+)-[0-9a-f]{8}\.sock$/;

export class ContextHost {
  private readonly builder: ContextBuilder;
  /** The home's real path (a hook may name it through a link). */
  private readonly realHome: string;
  private readonly connections = new Set<net.Socket>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  private constructor(
    private readonly home: string,
    private readonly runtime: LocalRuntime,
    private readonly server: net.Server,
    /** The home's link (contextSocketPath) and this host's own socket's name beside it. */
    private readonly link: string,
    private readonly name: string,
  ) {
    // Its own usage store: the file as a hook reads it, not this process's pending uses.
    this.builder = contextBuilderFor(home, new UsageStore(home));
    this.realHome = realpathOrNull(home) ?? path.resolve(home);
    server.on('connection', (socket) => this.serve(socket));
    server.on('error', (err) => logHookError(home, CONTEXT_HOOK_LOG, err));
    this.timer = setInterval(() => void this.claim(), CLAIM_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Listens for hooks of `home` in this process (`runtime`: its LocalRuntime), and serves them at
   * once unless another host does; null when hooks cannot be served here (then they work their
   * answers out themselves).
   */
  static async start(home: string, runtime: LocalRuntime): Promise<ContextHost | null> {
    const link = contextSocketPath(home);
    if (link === null) return null;
    const dir = path.dirname(link);
    const name = `context-${process.pid}-${randomBytes(4).toString('hex')}.sock`;
    if (!fitsSocketPath(path.join(dir, name))) return null;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Loosened since it was made: only the person may reach the socket. One made by someone
      // else is left alone (and hooks do not ask there either: isOwnPrivateDir).
      const st = fs.lstatSync(dir);
      if (st.isDirectory() && (st.mode & 0o077) !== 0 && (typeof process.getuid !== 'function' || st.uid === process.getuid())) fs.chmodSync(dir, 0o700);
      if (!isOwnPrivateDir(dir)) return null;
      const server = net.createServer({ allowHalfOpen: true });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path.join(dir, name), () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.unref();
      const host = new ContextHost(home, runtime, server, link, name);
      await host.claim();
      return host;
    } catch (err) {
      logHookError(home, CONTEXT_HOOK_LOG, err);
      return null;
    }
  }

  /** Whether hooks reach this host now (the home's link is to its socket). */
  serving(): boolean {
    return readLink(this.link) === this.name;
  }

  /** Stops answering: the link is removed if it is this host's, then its socket. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.underLock(async () => {
      if (this.serving()) fs.rmSync(this.link, { force: true });
    });
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Points the home's link at this host, unless a live host of this build and protocol serves it. */
  private async claim(): Promise<void> {
    await this.underLock(async () => {
      if (this.closed) return;
      const current = readLink(this.link);
      if (current === this.name) return;
      const dir = path.dirname(this.link);
      if (current !== null) {
        const other = path.join(dir, current);
        const answer = await exchange(other, { probe: true }, PROBE_TIMEOUT_MS);
        const { protocol, build } = (typeof answer === 'object' && answer !== null ? answer : {}) as Partial<ProbeAnswerLine>;
        if (protocol === CONTEXT_SOCKET_PROTOCOL && build === CAIRN_BUILD) return;
        // Its host is gone (nothing listens): its socket is only a file now.
        if (typeof answer === 'string' && answer.startsWith('the host could not be reached') && OWN_SOCKET.test(current)) fs.rmSync(other, { force: true });
      }
      removeLeftovers(dir);
      writeOwnSymlinkSync(this.link, this.name);
    });
  }

  private async underLock(fn: () => Promise<void>): Promise<void> {
    // The home was removed under the process (a test's, say): nothing to claim, nothing to log.
    if (!fs.existsSync(path.dirname(this.link))) return;
    try {
      await withLocalLock(this.link.replace(/\.sock$/, ''), fn);
    } catch (err) {
      logHookError(this.home, CONTEXT_HOOK_LOG, err);
    }
  }

  private serve(socket: net.Socket): void {
    this.connections.add(socket);
    socket.setTimeout(CONNECTION_TIMEOUT_MS, () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', () => socket.destroy());
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('data', (chunk: Buffer) => {
      if (size > MAX_REQUEST_BYTES) return;
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) reply(socket, { refused: 'the request is too long' });
      else chunks.push(chunk);
    });
    socket.on('end', () => {
      if (size > MAX_REQUEST_BYTES) return;
      void this.answer(Buffer.concat(chunks).toString('utf8')).then((line) => reply(socket, line));
    });
  }

  private async answer(data: string): Promise<ContextAnswerLine | ProbeAnswerLine> {
    let request: ContextRequestLine;
    try {
      request = JSON.parse(data) as ContextRequestLine;
    } catch {
      return { refused: 'the request is not JSON' };
    }
    if (typeof request === 'object' && request !== null && (request as { probe?: unknown }).probe === true) return { protocol: CONTEXT_SOCKET_PROTOCOL, build: CAIRN_BUILD };
    const refused = refusalOf(request, this.realHome);
    if (refused) return { refused };
    const { format, event, prompt, cwd } = request;
    try {
      if (await projectIdNeedsGit(cwd)) return { refused: 'the checkout has no origin: its project id comes from running git, as the hook runs it' };
      const text = await localContextAnswer(this.home, { format, event, ...(prompt !== undefined ? { prompt } : {}), cwd }, this.builder, this.runtime);
      return { text };
    } catch (err) {
      // The hook tries itself (and logs what fails there too).
      logHookError(this.home, CONTEXT_HOOK_LOG, err);
      return { refused: 'the answer failed' };
    }
  }
}

/** Why `request` is not answered here (`realHome`: the host's home, resolved), or null when it is. */
function refusalOf(request: Partial<ContextRequestLine> | null, realHome: string): string | null {
  if (typeof request !== 'object' || request === null) return 'the request is not an object';
  if (request.protocol !== CONTEXT_SOCKET_PROTOCOL) return 'another protocol';
  if (request.build !== CAIRN_BUILD) return 'another build of Cairn';
  if (typeof request.home !== 'string' || (realpathOrNull(request.home) ?? path.resolve(request.home)) !== realHome) return 'another home';
  if (!FORMATS.includes(request.format as ContextRequest['format'])) return 'an unknown format';
  if (request.event !== 'SessionStart' && request.event !== 'UserPromptSubmit') return 'an unknown event';
  if (request.prompt !== undefined && typeof request.prompt !== 'string') return 'a prompt that is not text';
  if (typeof request.cwd !== 'string' || !path.isAbsolute(request.cwd)) return 'a working directory that is not absolute';
  return null;
}

const FORMATS: ReadonlyArray<ContextRequest['format']> = ['text', 'json', 'claude-hook', 'copilot-hook'];

function reply(socket: net.Socket, line: ContextAnswerLine | ProbeAnswerLine): void {
  if (!socket.destroyed && !socket.writableEnded) socket.end(`${JSON.stringify(line)}\n`);
}

/** The name the home's link points to, or null (no link). */
function readLink(link: string): string | null {
  try {
    return fs.readlinkSync(link);
  } catch {
    return null; // no link (or not a link): no host serves, and this one may claim it
  }
}

/** Removes the sockets of hosts whose process is gone (killed before they could remove their own). */
function removeLeftovers(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const pid = OWN_SOCKET.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processRuns(Number(pid))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
  }
}

