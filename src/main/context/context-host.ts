/**
 * ContextHost: a long-lived process's answer to the prompt hook (issue 21) over the home's socket
 * (./context-socket.ts). The app, `cairn serve` and `cairn mcp` each start one with their home's
 * services (host/home-services.ts); the first to bind the socket serves, the others stand by (a hook
 * needs one answer), and a socket left by a host that died is taken over.
 *
 * Invariants:
 * - The answer is the hook's own: the same function (./context-answer.ts) on the same inputs,
 *   with a builder and a usage store of its own, so nothing this process has pending (its own
 *   usage not yet flushed) changes a byte. Each request lists the roots again, as a hook does, so
 *   an answer is never staler than the hook's; the builder's facts kept between requests are
 *   only used under their files' versions.
 * - Only a hook of the same build and protocol, for this home, is answered; anything else is
 *   refused with a reason, and the hook works the answer out itself.
 * - The socket never keeps the process alive (unref) and is removed when the host closes.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { CONTEXT_HOOK_LOG, logHookError } from './hook-log';
import { contextBuilderFor, localContextAnswer } from './context-answer';
import type { ContextBuilder } from '../memory/context-builder';
import { UsageStore } from '../memory/usage-store';
import type { LocalRuntime } from '../runtime/local/local-runtime';
import { CAIRN_BUILD, CONTEXT_SOCKET_PROTOCOL, MAX_REQUEST_BYTES, contextSocketPath, isOwnPrivateDir, type ContextAnswerLine, type ContextRequest, type ContextRequestLine } from './context-socket';

export class ContextHost {
  private readonly builder: ContextBuilder;

  /** The home's real path (a hook may name it through a link). */
  private readonly realHome: string;

  private constructor(
    private readonly home: string,
    private readonly runtime: LocalRuntime,
    private readonly server: net.Server,
  ) {
    this.realHome = realpathOr(home);
    // Its own usage store: the file as a hook reads it, not this process's pending uses.
    this.builder = contextBuilderFor(home, new UsageStore(home));
    server.on('connection', (socket) => this.serve(socket));
  }

  /**
   * Serves `home`'s socket from this process (`runtime`: its LocalRuntime), or null when another
   * host serves it or it cannot be served here (then hooks work their answers out themselves).
   */
  static async start(home: string, runtime: LocalRuntime): Promise<ContextHost | null> {
    const file = contextSocketPath(home);
    if (file === null) return null;
    try {
      const dir = path.dirname(file);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Loosened since it was made: only the person may reach the socket. One made by someone
      // else is left alone (and hooks do not ask there either: isOwnPrivateDir).
      const st = fs.lstatSync(dir);
      if (st.isDirectory() && (st.mode & 0o077) !== 0 && (typeof process.getuid !== 'function' || st.uid === process.getuid())) fs.chmodSync(dir, 0o700);
      if (!isOwnPrivateDir(dir)) return null;
      const server = await listen(file);
      if (!server) return null;
      server.unref();
      return new ContextHost(home, runtime, server);
    } catch (err) {
      logHookError(home, CONTEXT_HOOK_LOG, err);
      return null;
    }
  }

  /** Stops answering and removes the socket. */
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: net.Socket): void {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reply(socket, { refused: 'the request is too long' });
        return;
      }
      chunks.push(chunk);
    });
    socket.on('end', () => {
      if (size > MAX_REQUEST_BYTES) return;
      void this.answer(Buffer.concat(chunks).toString('utf8')).then((line) => reply(socket, line));
    });
  }

  private async answer(data: string): Promise<ContextAnswerLine> {
    let request: ContextRequestLine;
    try {
      request = JSON.parse(data) as ContextRequestLine;
    } catch {
      return { refused: 'the request is not JSON' };
    }
    const refused = refusalOf(request, this.realHome);
    if (refused) return { refused };
    const { format, event, prompt, cwd } = request;
    try {
      const text = await localContextAnswer(this.home, { format, event, ...(prompt !== undefined ? { prompt } : {}), cwd }, this.builder, this.runtime);
      return { text };
    } catch (err) {
      // The hook tries itself (and logs what fails there too).
      logHookError(this.home, CONTEXT_HOOK_LOG, err);
      return { refused: 'the answer failed' };
    }
  }
}

function realpathOr(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Why `request` is not answered here (`realHome`: the host's home, resolved), or null when it is. */
function refusalOf(request: Partial<ContextRequestLine> | null, realHome: string): string | null {
  if (typeof request !== 'object' || request === null) return 'the request is not an object';
  if (request.protocol !== CONTEXT_SOCKET_PROTOCOL) return 'another protocol';
  if (request.build !== CAIRN_BUILD) return 'another build of Cairn';
  if (typeof request.home !== 'string' || realpathOr(request.home) !== realHome) return 'another home';
  if (!FORMATS.includes(request.format as ContextRequest['format'])) return 'an unknown format';
  if (request.event !== 'SessionStart' && request.event !== 'UserPromptSubmit') return 'an unknown event';
  if (request.prompt !== undefined && typeof request.prompt !== 'string') return 'a prompt that is not text';
  if (typeof request.cwd !== 'string' || !path.isAbsolute(request.cwd)) return 'a working directory that is not absolute';
  return null;
}

const FORMATS: ReadonlyArray<ContextRequest['format']> = ['text', 'json', 'claude-hook'];

function reply(socket: net.Socket, line: ContextAnswerLine): void {
  if (!socket.destroyed) socket.end(`${JSON.stringify(line)}\n`);
}

/**
 * A server listening on `file`, or null when a live host already does. A socket file nobody
 * answers on (its host died) is removed and taken over.
 */
async function listen(file: string): Promise<net.Server | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    // Half-open: the hook ends its side once its request is sent, and waits for the answer.
    const server = net.createServer({ allowHalfOpen: true });
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(file, () => resolve(null));
    });
    if (!error) return server;
    if (error.code !== 'EADDRINUSE' || attempt > 0) throw error;
    if (await answers(file)) return null;
    fs.rmSync(file, { force: true });
  }
  return null;
}

/** Whether something listens on the socket `file`. */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createConnection(file);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
