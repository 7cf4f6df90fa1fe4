/**
 * The prompt hook's socket (issue 21): a long-lived Cairn process of a home (the app, `cairn
 * serve`, `cairn mcp`: ./context-host.ts) answers `cairn context --format claude-hook` over
 * `<home>/run/context.sock`, so the hook, started anew before every prompt, loads next to nothing
 * and the host's warm builder does the work. The answer is what the hook would print itself
 * (./context-answer.ts, the same function); the hook computes it itself when no host answers,
 * when the host is of another build of Cairn, or when it is slow.
 *
 * This module is the protocol and the hook's side, and stays light (node:net, and only once a
 * socket is there): the hook loads it before anything else.
 *
 * Security: the socket is in `<home>/run`, a 0700 directory, never in a shared temp directory
 * where another user could stand in for the host; whoever can reach it can already read and write
 * the home. The hook asks only when that directory is the person's own and nobody else may write
 * to it (what it prints goes into the agent's prompt). Windows is not served (a named pipe's name is open to every user): the hook computes
 * its answer itself there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

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

/** The longest socket path every platform Cairn serves takes (sun_path: 104 bytes on macOS, with its NUL). */
const MAX_SOCKET_PATH = 103;

/** What `cairn context` is asked (the parts its answer depends on besides the disk). */
export interface ContextRequest {
  readonly format: 'text' | 'json' | 'claude-hook';
  /** For claude-hook: the hook's event (anything but a prompt is answered as a session start). */
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

/** A host's answer: one JSON line, the text the hook prints (maybe empty), or why it did not answer. */
export type ContextAnswerLine = { readonly text: string } | { readonly refused: string };

/** The socket of `home`'s host, or null where none is served (Windows, a path too long). */
export function contextSocketPath(home: string): string | null {
  if (process.platform === 'win32') return null;
  const file = path.join(home, 'run', 'context.sock');
  return Buffer.byteLength(file) <= MAX_SOCKET_PATH ? file : null;
}

/**
 * The text a running host of `home` gives for `request`, or null when none answers in time (no
 * socket, nobody listening, another build, an error, a timeout): the hook then works it out.
 */
export async function askContextHost(home: string, request: ContextRequest, timeoutMs = HOST_ANSWER_TIMEOUT_MS): Promise<string | null> {
  const file = contextSocketPath(home);
  // No host has served this home yet (not even node:net is loaded), or the socket's directory is
  // not the person's own alone: whoever could write there could stand in for the host.
  if (file === null || !fs.existsSync(file) || !isOwnPrivateDir(path.dirname(file))) return null;
  const net = await import('node:net');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.createConnection(file);
    const done = (text: string | null): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('error', () => done(null));
    socket.on('connect', () => {
      const line: ContextRequestLine = { protocol: CONTEXT_SOCKET_PROTOCOL, build: CAIRN_BUILD, home, ...request };
      socket.end(`${JSON.stringify(line)}\n`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => done(answerText(Buffer.concat(chunks).toString('utf8'))));
  });
}

/** Whether `dir` is a directory of this user's that nobody else may write to. */
export function isOwnPrivateDir(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory() || (st.mode & 0o022) !== 0) return false;
  return typeof process.getuid !== 'function' || st.uid === process.getuid();
}

/** The text of an answer line, or null when it is not one (a refusal, a cut or foreign answer). */
function answerText(data: string): string | null {
  if (!data.endsWith('\n')) return null;
  try {
    const answer = JSON.parse(data) as Partial<{ text: unknown }>;
    return typeof answer.text === 'string' ? answer.text : null;
  } catch {
    return null;
  }
}
