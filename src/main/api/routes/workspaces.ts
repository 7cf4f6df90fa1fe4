/** The workspace routes: the registered checkouts, adding (local or SSH), removing, renaming, their state, trusting a host key. */
import { RegistryError, workspaceInfo } from '../../workspaces/registry';
import { os } from '../base';

export const workspaces = {
  list: os.workspaces.list.handler(({ context }) => context.registry.list().map(workspaceInfo)),
  add: os.workspaces.add.handler(async ({ input, context }) => {
    if (input.ssh) return workspaceInfo((await context.registry.addSsh({ name: input.name, host: input.ssh, path: input.path, identity: input.identity ?? null })).entry);
    return workspaceInfo(await context.registry.add(input.name, input.path));
  }),
  remove: os.workspaces.remove.handler(async ({ input, context }) => {
    if (!(await context.registry.remove(input.id))) throw new RegistryError(`No workspace ${input.id} is registered.`);
    return { status: 'ok' as const, message: 'Removed the workspace (its checkout and project memory are untouched).' };
  }),
  rename: os.workspaces.rename.handler(async ({ input, context }) => ({ status: 'ok' as const, message: `Renamed to ${await context.registry.rename(input.id, input.name)}.` })),
  status: os.workspaces.status.handler(({ input, context }) => context.registry.status(input.id)),
  trust: os.workspaces.trust.handler(async ({ input, context }) => ({ status: 'ok' as const, message: await context.registry.trust(input.id, input.fingerprint) })),
};
