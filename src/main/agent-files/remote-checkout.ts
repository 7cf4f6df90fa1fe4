/**
 * Other agents' files in an SSH workspace's checkout: the checkout is on the other host,
 * so its known files are listed, read and saved there by the remote helper (SshRuntime.checkoutFiles,
 * checkoutFile, writeCheckoutFile; remote-helper.ts `afiles`, `afile`, `afwrite`), one request each,
 * and what the helper found is turned here into what the local envelope (envelope.ts) would say.
 *
 * Invariants:
 * - the envelope runs on the remote host as locally: only the catalogue's places are looked at (the
 *   patterns are sent from catalogue.ts), each file's realpath must lie inside the checkout's
 *   realpath (its git root) and out of .git, only regular files with one link within the cap are
 *   opened (O_NOFOLLOW | O_NONBLOCK, the descriptor checked), and a save is the same conflict-safe
 *   atomic save, its digest checked again right before the rename, there;
 * - every answer is checked again here: a listed path must pass isSafeName and name the catalogue
 *   entry it was listed for (entryFor), and the bytes are decoded as strict UTF-8 without NUL here
 *   whatever the helper said; the reasons are envelope.ts's WHY, word for word;
 * - no remote host path travels back: the helper resolves links on its side, and messages name the
 *   host and the file's display path only.
 */
import type { CheckoutFileState, SshRuntime } from '../runtime/ssh/ssh-runtime';
import { RuntimeError } from '../runtime/runtime';
import { MAX_AGENT_FILE_BYTES, textOf, unreadableBecause, WHY, type Inspected } from './envelope';

/** A checkout reached over SSH: the workspace's remote path and the runtime of its host. */
export interface RemoteBase {
  readonly place: 'checkout';
  readonly remote: {
    readonly runtime: SshRuntime;
    /** The workspace's path on the host (the helper finds its git root there). */
    readonly path: string;
    /** Why the checkout cannot be used now, for a person (never a local path). */
    readonly why: (err: unknown) => string;
  };
}

export function isRemote(base: { readonly place: string } | RemoteBase): base is RemoteBase {
  return 'remote' in base;
}

/** Why a request about a remote checkout failed, or null when the failure is not the host's or the checkout's. */
export function remoteFailure(base: RemoteBase, err: unknown): string | null {
  if (err instanceof RuntimeError && (err.code === 'UNREACHABLE' || err.code === 'ENOENT' || err.code === 'IO')) return base.remote.why(err);
  return null;
}

/** The words for a state the helper answered (remote-helper.ts af_inspect), as the local envelope says them. */
export function inspectedOf(base: RemoteBase, s: CheckoutFileState): Inspected {
  switch (s.state) {
    case 'file':
      return s.data && s.data.byteLength <= MAX_AGENT_FILE_BYTES ? textOf(s.data, s.size, s.mtimeMs, s.mode, null, s.linkTo) : unreadableBecause(s.size, s.mtimeMs, WHY.over, 0, s.linkTo);
    case 'outside':
      return unreadableBecause(0, s.mtimeMs, WHY.outside(base), 0, s.linkTo);
    case 'git':
      return unreadableBecause(0, s.mtimeMs, WHY.git, 0, s.linkTo);
    case 'dir':
      return unreadableBecause(0, s.mtimeMs, WHY.folder, 0, s.linkTo);
    case 'special':
      return unreadableBecause(s.size, s.mtimeMs, WHY.special, 0, s.linkTo);
    case 'links':
      return unreadableBecause(s.size, s.mtimeMs, WHY.links, 0, s.linkTo);
    case 'large':
      return unreadableBecause(s.size, s.mtimeMs, WHY.large(s.size), 0, s.linkTo);
    case 'over':
      return unreadableBecause(s.size, s.mtimeMs, WHY.over, 0, s.linkTo);
    case 'loop':
      return unreadableBecause(s.size, s.mtimeMs, WHY.loop, 0, s.linkTo);
    case 'moved':
      return unreadableBecause(s.size, s.mtimeMs, WHY.moved, 0, s.linkTo);
    case 'utf8':
      return unreadableBecause(s.size, s.mtimeMs, WHY.utf8, 0, s.linkTo);
    case 'nul':
      return unreadableBecause(s.size, s.mtimeMs, WHY.nul, 0, s.linkTo);
    default: {
      const code = /^open:(E[A-Z0-9]{1,15})$/.exec(s.state)?.[1];
      return unreadableBecause(s.size, s.mtimeMs, WHY.open(code ?? 'error'), 0, s.linkTo);
    }
  }
}

/** What is at `rel` in the remote checkout (null: nothing), in one request. */
export async function inspectRemote(base: RemoteBase, rel: readonly string[]): Promise<Inspected | null> {
  const state = await base.remote.runtime.checkoutFile(base.remote.path, rel, MAX_AGENT_FILE_BYTES);
  return state ? inspectedOf(base, state) : null;
}

/** A conflict-safe save in the remote checkout, in one request: the outcome and the file before it (now, for 'meanwhile'). */
export async function writeRemote(
  base: RemoteBase,
  rel: readonly string[],
  data: Uint8Array,
  expected: string | null,
): Promise<{ outcome: 'ok' | 'unreadable' | 'conflict' | 'meanwhile' | 'linked'; file: Inspected | null }> {
  const { outcome, file } = await base.remote.runtime.writeCheckoutFile(base.remote.path, rel, MAX_AGENT_FILE_BYTES, expected, NEW_FILE_MODE, data);
  return { outcome, file: file ? inspectedOf(base, file) : null };
}

/** The mode of a file a save creates (an existing file keeps its own), as locally. */
export const NEW_FILE_MODE = 0o644;
