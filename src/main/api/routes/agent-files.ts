/** The routes of other agents' files: list, read, the conflict-safe save, search, adopt, compare, their history. */
import { ORPCError } from '@orpc/server';
import type { AgentFiles } from '../../agent-files/agent-files';
import type { RouterContext } from '../context';
import { os } from '../base';

function agentFilesOf(context: RouterContext): AgentFiles {
  if (!context.agentFiles) throw new ORPCError('NOT_IMPLEMENTED', { message: "This host does not show other agents' files." });
  return context.agentFiles;
}

export const agentFiles = {
  list: os.agentFiles.list.handler(({ input, context }) => agentFilesOf(context).list(input.workspaceId)),
  read: os.agentFiles.read.handler(({ input, context }) => agentFilesOf(context).read(input.workspaceId, input.id)),
  write: os.agentFiles.write.handler(async ({ input, context }) => {
    const outcome = await agentFilesOf(context).write(input.workspaceId, input.id, input.content, input.expectedSha256);
    return outcome.status === 'ok' ? { ...outcome, warnings: [...outcome.warnings] } : outcome;
  }),
  search: os.agentFiles.search.handler(async ({ input, context }) => ({ hits: await agentFilesOf(context).search(input.workspaceId, input.query, input.limit) })),
  adopt: os.agentFiles.adopt.handler(({ input, context }) => agentFilesOf(context).adopt(input.workspaceId, { id: input.id, scope: input.scope, lines: input.lines, text: input.text })),
  compare: os.agentFiles.compare.handler(({ input, context }) => agentFilesOf(context).compare(input.workspaceId, input.ids)),
  history: os.agentFiles.history.handler(async ({ input, context }) => ({ versions: await agentFilesOf(context).history(input.workspaceId, input.id, input.limit) })),
};
