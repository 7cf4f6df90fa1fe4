/** The setup route: how to connect each agent, as `cairn setup` would write it. */
import { agentGuides } from '../../setup/guide';
import { resolveLauncher } from '../../setup/launcher';
import { os } from '../base';

export const setup = {
  guide: os.setup.guide.handler(async ({ input, context }) => {
    const workspace = input.workspaceId === null ? undefined : (await context.registry.list()).find((w) => w.id === input.workspaceId);
    const checkout = workspace && workspace.kind === 'local' ? workspace.path : null;
    return agentGuides({ launcher: resolveLauncher(), home: context.setupHome, checkout });
  }),
};
