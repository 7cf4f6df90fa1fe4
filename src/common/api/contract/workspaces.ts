/** Which checkouts Cairn knows (local or over SSH), their state, and trusting an SSH host's key. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { changeResultSchema } from './shared';

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['local', 'ssh']),
  /** The checkout's path (the remote absolute path for ssh). */
  path: z.string(),
  /** `[user@]host[:port]` for ssh, null for local. */
  host: z.string().nullable(),
});
export const hostKeySchema = z.object({
  host: z.string(),
  /** `SHA256:...` as OpenSSH prints it. */
  fingerprint: z.string(),
  state: z.enum(['trusted', 'unknown', 'changed']),
});
/**
 * For an SSH workspace whose host key is not trusted: reachable false, the reason in plain words,
 * and `hostKey` with the fingerprint the person is asked to check and trust.
 */
const workspaceStatusSchema = z.object({ id: z.string(), reachable: z.boolean(), reason: z.string().nullable(), hostKey: hostKeySchema.nullable() });

export const workspacesContract = {
  list: oc.output(z.array(workspaceSchema)),
  add: oc
    .input(
      z.object({
        name: z.string().min(1).max(100),
        path: z.string().min(1).max(4096),
        /** `[USER@]HOST[:PORT]` when the checkout is remote (then `path` is absolute on that host). */
        ssh: z.string().max(300).nullable().optional(),
        /** A private key file for that host (default: ssh-agent, ~/.ssh/config, ~/.ssh/id_*). */
        identity: z.string().max(4096).nullable().optional(),
      }),
    )
    .output(workspaceSchema),
  /** Unregisters a workspace; its checkout and the project memory in it are untouched. */
  remove: oc.input(z.object({ id: z.string() })).output(changeResultSchema),
  /** Gives a workspace another display name; its id, folder and memory stay. */
  rename: oc.input(z.object({ id: z.string(), name: z.string().max(1000) })).output(changeResultSchema),
  /** Whether it can be used now; `reason` says why not (for a local workspace, a sentence for a person). */
  status: oc.input(z.object({ id: z.string() })).output(workspaceStatusSchema),
  /** Records the host key of an SSH workspace's host, only if it presents exactly `fingerprint`. */
  trust: oc.input(z.object({ id: z.string(), fingerprint: z.string().min(1).max(200) })).output(changeResultSchema),
};
