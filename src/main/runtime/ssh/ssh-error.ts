/**
 * SshError and the process's pool of SSH connections, apart from ssh-connection.ts so that code
 * which only needs to recognize an SSH failure or close the pool (the CLI, the workspace registry)
 * does not load ssh2 and the connection code: a `cairn` command on a local workspace never does.
 * Messages of SshError are for a person or a model: they name the host, never a local file path.
 */
import type { HostKeyInfo } from './known-hosts';

export type SshErrorKind = 'hostkey' | 'auth' | 'connect' | 'lost' | 'timeout' | 'helper';

export class SshError extends Error {
  override readonly name = 'SshError';
  constructor(
    readonly kind: SshErrorKind,
    message: string,
    /** For 'hostkey': the key the host presented. */
    readonly hostKey?: HostKeyInfo,
  ) {
    super(message);
  }
}

/** One connection per host and login, shared by every runtime of the process (ssh-connection.ts fills it). */
export const connectionPool = new Map<string, { close(): void }>();

/** Closes every pooled SSH connection (their keepalive timers would otherwise hold a CLI process open). */
export function closeAllConnections(): void {
  for (const c of connectionPool.values()) c.close();
  connectionPool.clear();
}
