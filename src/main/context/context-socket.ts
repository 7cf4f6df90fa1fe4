/**
 * The prompt hook's socket: a long-lived Cairn process of a home (the app, `cairn
 * serve`, `cairn mcp`: ./context-host.ts) answers `cairn context --format claude-hook` over
 * `<home>/run/context.sock`, so the hook, started anew before every prompt, loads next to nothing
 * and the host's warm builder does the work. The answer is what the hook would print itself
 * (./context-answer.ts, the same function); the hook computes it itself when no host answers,
 * when the host is of another build of Cairn, or when it is slow.
 *
 * `context.sock` is a symbolic link to the serving host's own socket, `context-<pid>-<random>.sock`
 * beside it: every host binds a socket of its own (removed by Node when it closes, so a host never
 * removes another's), and the link is replaced whole when another host takes over (context-host.ts).
 *
 * This module is the protocol and the hook's side, and stays light (node:net, and only once a
 * socket is there): the hook loads it before anything else.
 *
 * Security: the socket is in `<home>/run`, a 0700 directory, never in a shared temp directory
 * where another user could stand in for the host; whoever can reach it can already read and write
 * the home. The hook asks only when that directory is the person's own and nobody else may write
 * to it (what it prints goes into the agent's prompt). Windows is not served (a named pipe's name
 * is open to every user): the hook computes its answer itself there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_CONTEXT_BYTES } from '../../common/context/injection';

/** Replaced by the build with its own id (electron.vite.config.ts); absent when run from source. */
declare const __CAIRN_BUILD__: string | undefined;

/** This build of Cairn: a host answers only a hook of the same build (the same code gives the same bytes). */
export const CAIRN_BUILD = typeof __CAIRN_BUILD__ === 'string' ? __CAIRN_BUILD__ : 'source';

/** Bump when a request's or an answer's shape changes. */
export const CONTEXT_SOCKET_PROTOCOL = 1;

/** How long the hook waits for a host's answer before working it out itself. */
export const HOST_ANSWER_TIMEOUT_MS = 1_000;

/** The longest request line a host reads (a prompt can be long; a line past this is refused). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * The longest answer the hook reads from a host: the largest context there can be
 * (MAX_CONTEXT_BYTES), written as the hook's JSON and that again as the answer line's JSON, where
 * one byte becomes at most seven (a control character is `\u00XX`, then `\\u00XX`), and the keys
 * around it. A host that sends more is not giving a context: the hook stops reading at once (so
 * its memory stays bounded) and works the answer out itself.
 */
export const MAX_ANSWER_BYTES = 7 * MAX_CONTEXT_BYTES + 1024;

/** The longest socket path every platform Cairn serves takes (sun_path: 104 bytes on macOS, with its NUL). */
const MAX_SOCKET_PATH = 103;

/** What `cairn context` is asked (the parts its answer depends on besides the disk). */
export interface ContextRequest {
  readonly format: 'text' | 'json' | 'claude-hook' | 'copilot-hook';
  /** For the hooks' formats: the hook's event (anything but a prompt is answered as a session start). */
  readonly event: 'SessionStart' | 'UserPromptSubmit';
  readonly prompt?: string;
  /** Where the agent runs (absolute): its session is the checkout's own. */
  readonly cwd: string;
}

/** A request on the socket: one JSON line. */
export interface ContextRequestLine extends ContextRequest {
  readonly protocol: number;
  readonly build: string;
  /** The home the hook was given (a host answers only for its own). */
  readonly home: string;
}

/** A host asking another which build and protocol it answers (ProbeAnswerLine), before taking its place. */
export interface ProbeLine {
  readonly probe: true;
}

export interface ProbeAnswerLine {
  readonly protocol: number;
  readonly build: string;
}

/** A host's answer: one JSON line, the text the hook prints (maybe empty), or why it did not answer. */
export type ContextAnswerLine = { readonly text: string } | { readonly refused: string };

/** What the hook got from asking: the host's text, or why it works the answer out itself. */
export type HostAnswer = { readonly text: string } | { readonly missed: string };

/** Whether `file` fits in a socket address on every platform Cairn serves. */
export function fitsSocketPath(file: string): boolean {
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH;
}

/** Where hooks reach `home`'s host (a link to the serving host's socket), or null where none is served (Windows, a path too long). */
export function contextSocketPath(home: string): string | null {
  if (process.platform === 'win32') return null;
  const file = path.join(home, 'run', 'context.sock');
  return fitsSocketPath(file) ? file : null;
}

/** Whether `dir` is a directory of this user's that nobody else may write to. */
export function isOwnPrivateDir(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory() || (st.mode & 0o022) !== 0) return false;
  return typeof process.getuid !== 'function' || st.uid === process.getuid();
}

/**
 * The text a running host of `home` gives for `request`, or why the hook works it out itself (no
 * socket, nobody listening, another build, an error, a timeout).
 */
export async function askContextHost(home: string, request: ContextRequest, timeoutMs = HOST_ANSWER_TIMEOUT_MS): Promise<HostAnswer> {
  const file = contextSocketPath(home);
  if (file === null) return { missed: 'no host is served on this platform or for a home this deep' };
  // No host serves this home (not even node:net is loaded), or the socket's directory is not the
  // person's own alone: whoever could write there could stand in for the host.
  if (!fs.existsSync(file)) return { missed: 'no Cairn process serves this home' };
  if (!isOwnPrivateDir(path.dirname(file))) return { missed: `${path.dirname(file)} is not yours alone` };
  const line: ContextRequestLine = { protocol: CONTEXT_SOCKET_PROTOCOL, build: CAIRN_BUILD, home, ...request };
  const answer = await exchange(file, line, timeoutMs);
  if (typeof answer === 'string') return { missed: answer };
  if (typeof answer !== 'object' || answer === null) return { missed: 'the host gave no answer' };
  const { text, refused } = answer as Partial<{ text: unknown; refused: unknown }>;
  if (typeof text === 'string') return { text };
  return { missed: typeof refused === 'string' ? `the host refused: ${refused}` : 'the host gave no answer' };
}

/**
 * Sends one JSON line to the socket `file` and reads one back: the parsed answer, or why there is
 * none (a string), also when the answer runs past `maxBytes`. Used by the hook, and by a host
 * probing another (context-host.ts).
 */
export async function exchange(file: string, line: object, timeoutMs: number, maxBytes = MAX_ANSWER_BYTES): Promise<unknown> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const socket = net.createConnection(file);
    const done = (answer: unknown): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('error', (err: NodeJS.ErrnoException) => done(`the host could not be reached (${err.code ?? err.message})`));
    socket.on('connect', () => socket.end(`${JSON.stringify(line)}\n`));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        chunks.length = 0;
        return done(`the answer is longer than any context (over ${maxBytes} bytes)`);
      }
      chunks.push(chunk);
    });
    socket.on('end', () => {
      const data = Buffer.concat(chunks).toString('utf8');
      if (!data.endsWith('\n')) return done('the answer was cut');
      try {
        done(JSON.parse(data) as unknown);
      } catch {
        done('the answer was not JSON');
      }
    });
  });
}
