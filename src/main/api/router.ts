/**
 * The oRPC router: the main process's side of src/common/api/contract.ts, over real services, one
 * file per feature under ./routes/ assembled here. Hosts (Electron's MessagePort, `cairn serve`'s
 * HTTP and WebSocket) serve this one router.
 *
 * Invariants: a person's actions run with actor `user`; every route runs inside the one error
 * middleware (./errors.ts): an error a person can fix reaches the client with its message (a typed
 * refusal where the answer has one), anything else is logged and answered as a 500 that names
 * no stack and no host path of a memory root (a workspace's own folder, which the person typed,
 * may appear in a refusal).
 */
import { os } from './base';
import { activity } from './routes/activity';
import { agentFiles } from './routes/agent-files';
import { context } from './routes/context';
import { harvest } from './routes/harvest';
import { history } from './routes/history';
import { inbox } from './routes/inbox';
import { memory } from './routes/memory';
import { setAside } from './routes/set-aside';
import { settings } from './routes/settings';
import { setup } from './routes/setup';
import { sync } from './routes/sync';
import { consolidation } from './routes/consolidation';
import { workspaces } from './routes/workspaces';

export { createRouterContext, type HarvestControl, type RouterContext } from './context';

export const router = os.router({ memory, context, history, inbox, harvest, consolidation, agentFiles, workspaces, setup, settings, setAside, activity, sync });

export type AppRouter = typeof router;
