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

/** Why the helper could not read a file, by its state (remote-helper.ts af_inspect), in the local envelope's words. */
const STATE_WHY: Readonly<Record<string, (base: RemoteBase, s: CheckoutFileState) => string>> = {
  file: () => WHY.over,
  outside: (base) => WHY.outside(base),
  git: () => WHY.git,
  dir: () => WHY.folder,
  special: () => WHY.special,
  links: () => WHY.links,
  large: (_, s) => WHY.large(s.size),
  over: () => WHY.over,
  loop: () => WHY.loop,
  moved: () => WHY.moved,
  utf8: () => WHY.utf8,
  nul: () => WHY.nul,
};

/** The words for a state the helper answered (remote-helper.ts af_inspect), as the local envelope says them. */
export function inspectedOf(base: RemoteBase, s: CheckoutFileState): Inspected {
  if (s.state === 'file' && s.data && s.data.byteLength <= MAX_AGENT_FILE_BYTES) return textOf(s.data, s.size, s.mtimeMs, s.mode, null, s.linkTo);
  // What lies outside, in .git or is a folder was never opened: no size is said for it.
  const size = s.state === 'outside' || s.state === 'git' || s.state === 'dir' ? 0 : s.size;
  const why = Object.hasOwn(STATE_WHY, s.state) ? STATE_WHY[s.state]!(base, s) : WHY.open(/^open:(E[A-Z0-9]{1,15})$/.exec(s.state)?.[1] ?? 'error');
  return unreadableBecause(size, s.mtimeMs, why, 0, s.linkTo);
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
